#include "strata/report/hello_event.h"

#include "strata/core/host_info.h"
#include "strata/distribute/host_devices.h"
#include "strata/schema/events.h"
#include "strata/tensor/blas.h"

#include <unistd.h>

namespace strata::run {

nlohmann::ordered_json helloFields()
{
    return {{"version", STRATA_VERSION},   {"schema", schema::kEventSchemaVersion}, {"host", hostName()},
            {"pid", static_cast<int64_t>(getpid())}, {"devices", distribute::HostDevices::probe().describe()},  {"blas", blas::description()}};
}

} // namespace strata::run
