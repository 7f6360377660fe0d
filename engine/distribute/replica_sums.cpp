#include "replica_sums.h"

#include "replica.h"
#include "strata/distribute/in_process_communicator.h"
#include "strata/distribute/process_group.h"

#include <algorithm>

namespace strata::distribute {

ReplicaSums::ReplicaSums(int replicas, ProcessGroup* group, std::chrono::milliseconds timeout)
    : m_local(std::make_unique<InProcessCommunicator>(replicas)), m_group(group),
      m_slots(static_cast<size_t>(replicas))
{
    if (replicas * (group ? group->size() : 1) <= 1)
        return;
    CollectiveOptions options;
    options.timeout = timeout;
    for (int r = 0; r < replicas; ++r) {
        // Replica 0 adds the local values in replica order (every replica reads the same sum),
        // and the processes' sums through the group.
        m_sums.emplace_back([this, r, replicas, options](std::span<double> values) {
            if (replicas == 1) {
                m_group->allReduce(values);
                return;
            }
            m_slots[static_cast<size_t>(r)].assign(values.begin(), values.end());
            m_local->barrier(r, options);
            if (r == 0) {
                m_total.assign(values.size(), 0.0);
                for (const auto& slot : m_slots)
                    for (size_t i = 0; i < slot.size(); ++i)
                        m_total[i] += slot[i];
                if (m_group)
                    m_group->allReduce(std::span<double>(m_total));
            }
            m_local->barrier(r, options);
            std::copy(m_total.begin(), m_total.end(), values.begin());
            m_local->barrier(r, options); // m_total is reused by the next sum
        });
    }
}

ReplicaSums::~ReplicaSums() = default;

const nn::CrossReplicaSum* ReplicaSums::forReplica(int r) const
{
    return m_sums.empty() ? nullptr : &m_sums[static_cast<size_t>(r)];
}

void averageStates(std::vector<std::unique_ptr<Replica>>& replicas, ProcessGroup* group, nn::Sequential* also)
{
    const auto& first = replicas[0]->model().states();
    if (first.empty() || (replicas.size() == 1 && !group && !also))
        return;
    size_t total = 0;
    for (const nn::Parameter* s : first)
        total += static_cast<size_t>(s->value.numel());
    // Summed in replica order on the host (the statistics are a few values per channel).
    std::vector<float> sum(total, 0.0f);
    for (auto& replica : replicas) {
        size_t offset = 0;
        for (const nn::Parameter* s : replica->model().states()) {
            const Tensor host = s->value.to(Device::cpu());
            const auto v = host.values();
            for (size_t i = 0; i < v.size(); ++i)
                sum[offset + i] += v[i];
            offset += v.size();
        }
    }
    int64_t count = static_cast<int64_t>(replicas.size());
    if (group) {
        group->allReduce(std::span<float>(sum));
        count *= group->size();
    }
    const float scale = 1.0f / static_cast<float>(count);
    std::transform(sum.begin(), sum.end(), sum.begin(), [scale](float v) { return v * scale; });
    const auto write = [&](nn::Sequential& model) {
        size_t offset = 0;
        for (nn::Parameter* s : model.states()) {
            Tensor mean(s->value.shape());
            std::copy_n(sum.begin() + static_cast<std::ptrdiff_t>(offset), mean.numel(), mean.data());
            s->value.copyFrom(mean);
            offset += static_cast<size_t>(mean.numel());
        }
    };
    for (auto& replica : replicas)
        write(replica->model());
    if (also)
        write(*also);
}

} // namespace strata::distribute
