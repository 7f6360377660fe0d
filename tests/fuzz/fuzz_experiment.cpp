// The experiment document (*.strata.json), as the engine and the app read it: JSON text to
// an Experiment (every section, the model in our format or Keras', shape inference). An
// accepted document must also survive what a launch does to it: written back out
// (experimentToJson, the launch.strata.json the engine reads) it reads again, to the same
// document.

#include "fuzz_support.h"

#include "strata/schema/experiment.h"

using namespace strata;

namespace {

// Not a directory on any machine: a "model" naming a file relative to it finds nothing.
const std::string kBaseDir = "/nonexistent/strata-fuzz";

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    schema::Experiment experiment;
    const bool accepted = fuzz::answers([&] {
        const schema::Json document = schema::parseJsonText(std::string(fuzz::text(data, size)), "fuzz.strata.json");
        experiment = schema::parseExperiment(document, kBaseDir, "fuzz");
    });
    if (!accepted)
        return 0;
    const schema::Json written = schema::experimentToJson(experiment);
    schema::Experiment again;
    try {
        again = schema::parseExperiment(written, kBaseDir, "fuzz");
    } catch (const Error& e) {
        fuzz::fail("an accepted experiment, written back, is refused: " + std::string(e.what()) + "\n" + written.dump());
    }
    if (schema::experimentToJson(again) != written)
        fuzz::fail("an accepted experiment, written back and read again, changed:\n" + written.dump() + "\n" +
                   schema::experimentToJson(again).dump());
    return 0;
}
