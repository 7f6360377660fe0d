#!/usr/bin/env python3
"""Lists the longest C++ functions (and files) under the given folders, for the house rule "no
production file over 500 lines, no function over 80 lines, tables excepted".

A function is a brace-matched body at namespace or class scope (lambdas and local classes count
towards the function that holds them), measured from the first line of its signature to its
closing brace. Lines inside multi-line brace initializers (tables: `return {{...}, ...};`,
`QStringList{...}`) are counted apart: a function is over the limit only when its lines less its
table lines exceed it. Comments, string literals and preprocessor lines are blanked first, so a
brace in them does not count. A scanner, not a compiler: good enough for this code base's style.

  scripts/function-sizes.py app ui                 the 10 longest functions and files
  scripts/function-sizes.py --top 20 engine
  scripts/function-sizes.py --check app ui engine  exit 1 if a function or file is over the limits
"""
import argparse
import re
import sys
from pathlib import Path

SOURCE_SUFFIXES = {".cpp", ".cc", ".cxx", ".h", ".hpp", ".cu", ".cuh", ".mm"}
BLOCK_KEYWORDS = {"else", "do", "try", "mutable", "noexcept", "const", "override", "final",
                  "constexpr", "consteval"}
SCOPE_HEAD = re.compile(r"^(?:template\s*<.*>\s*)?(?:namespace|extern)\b", re.S)
TYPE_HEAD = re.compile(r"\b(?:class|struct|union|enum)\b[^()]*$", re.S)
LAMBDA_RETURN = re.compile(r"\)\s*(?:mutable\s*)?(?:noexcept\s*)?->\s*[\w:<>,\s*&]+$", re.S)


def blank_comments_and_strings(text):
    """Replaces comments, string and character literals and preprocessor lines with spaces,
    keeping every newline so line numbers stay right."""
    out = []
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            # A preprocessor line, with its backslash continuations.
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        if c == "/" and text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
            continue
        if c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("".join("\n" if ch == "\n" else " " for ch in text[i:end]))
            i = end
            continue
        raw = re.match(r'(?:u8|u|U|L)?R"([^(\s]*)\(', text[i:i + 24]) if c in "uULR" else None
        if raw and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            closing = ")" + raw.group(1) + '"'
            end = text.find(closing, i + raw.end())
            end = n if end < 0 else end + len(closing)
            out.append('""' + "".join("\n" if ch == "\n" else " " for ch in text[i + 2:end]))
            i = end
            continue
        if c in "\"'":
            # A ' between digits is a digit separator (1'000'000), not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + (c if j < n else ""))
            i = j + 1
            continue
        out.append(c)
        line_start = c == "\n" or (line_start and c in " \t")
        i += 1
    return "".join(out)


def matching_brace(text, open_pos):
    depth = 0
    for k in range(open_pos, len(text)):
        if text[k] == "{":
            depth += 1
        elif text[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(text) - 1


def previous_token(text, pos):
    """The token that ends just before pos: a punctuation character or a word."""
    k = pos - 1
    while k >= 0 and text[k].isspace():
        k -= 1
    if k < 0:
        return ""
    if text[k].isalnum() or text[k] == "_":
        start = k
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        return text[start:k + 1]
    return text[k]


def opens_block(text, pos, parent_is_block, stmt_start):
    """Whether the '{' at pos opens a block of statements (rather than a brace initializer)."""
    token = previous_token(text, pos)
    if not parent_is_block:
        return False
    if token in (")", "]", ";", "{", "}", ":") or token in BLOCK_KEYWORDS:
        return True
    head = text[stmt_start:pos]
    return bool(LAMBDA_RETURN.search(head) or TYPE_HEAD.search(head))


def table_lines(text, body_open, body_close):
    """Lines of the body inside multi-line brace initializers (tables), outermost only."""
    lines = set()
    stack = [True]  # whether each open brace is a block
    stmt_start = body_open + 1
    k = body_open + 1
    while k < body_close:
        c = text[k]
        if c == "{":
            is_block = opens_block(text, k, stack[-1], stmt_start)
            if not is_block and stack[-1]:
                end = matching_brace(text, k)
                first, last = text.count("\n", 0, k), text.count("\n", 0, end)
                if last > first:
                    lines.update(range(first, last + 1))
                k = end + 1
                continue
            stack.append(is_block)
            stmt_start = k + 1
        elif c == "}":
            if len(stack) > 1:
                stack.pop()
            stmt_start = k + 1
        elif c == ";":
            stmt_start = k + 1
        k += 1
    return len(lines)


def function_name(head):
    """The (qualified) name before the parameter list of a function signature."""
    depth = 0
    candidates = []
    for m in re.finditer(r"[()]", head):
        if m.group() == "(":
            if depth == 0:
                before = head[:m.start()].rstrip()
                name = re.search(r"((?:[\w~]+\s*::\s*)*(?:operator\s*[^\s\w(]+|operator\s+\w+|~?\w+))$",
                                 before)
                if name:
                    candidates.append(re.sub(r"\s+", "", name.group(1)))
            depth += 1
        else:
            depth = max(0, depth - 1)
    # Skip macros before the signature (Q_INVOKABLE-like words are not followed by '(').
    names = [c for c in candidates if not re.fullmatch(r"[A-Z_][A-Z0-9_]*", c.split("::")[-1])]
    return (names or candidates or ["?"])[0]


def is_function_head(head):
    if re.search(r"=\s*\[[^\]]*\]", head):
        return True  # `const auto f = [..](..) {`: a lambda at namespace scope
    if "(" not in head:
        return False
    return "operator" in head or "=" not in head[:head.index("(")]


def scan(text):
    """Yields (name, first_line, last_line, table_line_count) for each function in text."""
    k, n = 0, len(text)
    head_start = 0
    while k < n:
        c = text[k]
        if c in ";}":
            head_start = k + 1
        elif c == "{":
            head = text[head_start:k].strip()
            if SCOPE_HEAD.match(head) or TYPE_HEAD.search(head.split("(")[0]) and "(" not in head:
                head_start = k + 1  # namespace, extern "C" or class body: look inside
            elif is_function_head(head):
                ctor_init = re.search(r"\)\s*(?:noexcept\s*)?:(?!:)", head)
                if ctor_init and previous_token(text, k) not in (")", "}") \
                        and previous_token(text, k) not in BLOCK_KEYWORDS:
                    k = matching_brace(text, k) + 1  # a member's brace initializer
                    continue
                end = matching_brace(text, k)
                start_offset = head_start + (len(text[head_start:k]) - len(text[head_start:k].lstrip()))
                first = text.count("\n", 0, start_offset) + 1
                last = text.count("\n", 0, end) + 1
                yield function_name(head), first, last, table_lines(text, k, end)
                k = end + 1
                head_start = k
                continue
            else:
                k = matching_brace(text, k) + 1  # data: a table at namespace scope, an enum
                head_start = k
                continue
        k += 1


def source_files(roots):
    for root in roots:
        path = Path(root)
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.suffix in SOURCE_SUFFIXES)
        for f in files:
            if "build" in f.parts or "third_party" in f.parts:
                continue
            yield f


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("paths", nargs="+", help="folders or files to scan")
    parser.add_argument("--top", type=int, default=10, help="how many functions and files to list")
    parser.add_argument("--max-function", type=int, default=80)
    parser.add_argument("--max-file", type=int, default=500)
    parser.add_argument("--check", action="store_true",
                        help="list only what is over the limits; exit 1 when anything is")
    args = parser.parse_args()

    functions, files = [], []
    for f in source_files(args.paths):
        text = f.read_text(encoding="utf-8", errors="replace")
        files.append((text.count("\n"), str(f)))
        for name, first, last, tables in scan(blank_comments_and_strings(text)):
            functions.append((last - first + 1, tables, f"{f}:{first}", name))

    code_lines = lambda fn: fn[0] - fn[1]
    functions.sort(key=lambda fn: (-fn[0], fn[2]))
    files.sort(key=lambda fl: (-fl[0], fl[1]))
    if args.check:
        long_functions = [fn for fn in functions if code_lines(fn) > args.max_function]
        long_files = [fl for fl in files if fl[0] > args.max_file]
        for lines, tables, where, name in long_functions:
            print(f"function {lines:5} lines ({tables} in tables)  {where}  {name}")
        for lines, where in long_files:
            print(f"file     {lines:5} lines  {where}")
        return 1 if long_functions or long_files else 0

    print(f"Longest functions (lines; of which in tables; limit {args.max_function} less tables):")
    for lines, tables, where, name in functions[:args.top]:
        table_note = f" ({tables} in tables)" if tables else ""
        over = "  OVER" if lines - tables > args.max_function else ""
        print(f"  {lines:5}{table_note:18} {where}  {name}{over}")
    print(f"Longest files (lines; limit {args.max_file}):")
    for lines, where in files[:args.top]:
        print(f"  {lines:5}  {where}{'  OVER' if lines > args.max_file else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
