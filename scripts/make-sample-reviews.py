#!/usr/bin/env python3
"""Writes resources/data/reviews-{train,test}.tsv: a small labelled text corpus ("pos"/"neg"
<TAB> review) for the Embedding + GlobalAveragePooling1D example. Deterministic; rerunning
reproduces the committed files. For real data, point the experiment at IMDb (aclImdb)."""
import random
from pathlib import Path

SUBJECTS = ["the film", "this movie", "the story", "the plot", "the acting", "the cast", "the script",
            "the soundtrack", "the ending", "the director's work", "the dialogue", "the pacing",
            "the cinematography", "the lead performance", "the sequel", "the first half", "the finale"]
POSITIVE = ["wonderful", "brilliant", "moving", "gripping", "delightful", "superb", "charming", "clever",
            "beautiful", "touching", "funny", "memorable", "excellent", "powerful", "stunning", "heartfelt"]
NEGATIVE = ["boring", "awful", "dull", "clumsy", "tedious", "predictable", "messy", "shallow", "forgettable",
            "terrible", "bland", "painful", "weak", "lifeless", "confusing", "overlong"]
INTENSIFIERS = ["", "", "really ", "truly ", "quite ", "incredibly ", "surprisingly ", "utterly "]
POS_CLOSERS = ["I would watch it again.", "Highly recommended.", "A real treat for the whole family.",
               "It stayed with me for days.", "Worth every minute.", "I left the cinema smiling.",
               "One of the best this year.", "Go see it."]
NEG_CLOSERS = ["I want my money back.", "Skip this one.", "I nearly fell asleep.", "What a waste of time.",
               "Not worth the ticket.", "I walked out halfway.", "Avoid it.", "Hard to sit through."]
FILLERS = ["I saw it on a rainy sunday.", "My friends had mixed expectations.", "It runs about two hours.",
           "The theatre was half full.", "It is based on a novel.", "We watched it at home.",
           "The trailer gave a lot away.", "It was released last spring."]


def clause(rng, positive):
    words = POSITIVE if positive else NEGATIVE
    subject = rng.choice(SUBJECTS)
    if rng.random() < 0.15:
        # Negated opposite: "not boring" reads positive.
        return f"{subject} was not {rng.choice(NEGATIVE if positive else POSITIVE)}"
    return f"{subject} was {rng.choice(INTENSIFIERS)}{rng.choice(words)}"


def review(rng, positive):
    parts = [clause(rng, positive).capitalize() + "."]
    for _ in range(rng.randint(0, 2)):
        # A mixed remark now and then, as real reviews have.
        parts.append(clause(rng, positive if rng.random() < 0.8 else not positive).capitalize() + ".")
    if rng.random() < 0.5:
        parts.insert(rng.randint(0, len(parts)), rng.choice(FILLERS))
    parts.append(rng.choice(POS_CLOSERS if positive else NEG_CLOSERS))
    return " ".join(parts)


def write(path, count, seed):
    rng = random.Random(seed)
    with open(path, "w") as out:
        for _ in range(count):
            positive = rng.random() < 0.5
            out.write(f"{'pos' if positive else 'neg'}\t{review(rng, positive)}\n")


if __name__ == "__main__":
    data = Path(__file__).resolve().parent.parent / "resources" / "data"
    data.mkdir(parents=True, exist_ok=True)
    write(data / "reviews-train.tsv", 1600, 1)
    write(data / "reviews-test.tsv", 400, 2)
