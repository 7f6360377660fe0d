#pragma once
// ReplicaSums (internal to the synchronous strategies): the cross-replica sums synchronized
// BatchNormalization asks for in the middle of a step, and the averaging of the replicas'
// moving statistics after it. Host buffers: summed over this process's replicas (threads),
// then, with a process group, over every process of the job.

#include "strata/nn/sequential.h"

#include <chrono>
#include <memory>
#include <vector>

namespace strata::distribute {

class InProcessCommunicator;
class ProcessGroup;
class Replica;

class ReplicaSums {
public:
    ReplicaSums(int replicas, ProcessGroup* group, std::chrono::milliseconds timeout);
    ~ReplicaSums();

    // The function replica `r` passes in its ForwardContext (null when the job has one replica).
    const nn::CrossReplicaSum* forReplica(int r) const;

private:
    std::unique_ptr<InProcessCommunicator> m_local; // its barriers
    ProcessGroup* m_group;
    std::vector<std::vector<double>> m_slots; // each replica's values
    std::vector<double> m_total;
    std::vector<nn::CrossReplicaSum> m_sums;
};

// Sets every replica's non-trainable variables (moving statistics), and `also`'s when given,
// to their mean over the replicas of the job (this process's, and with `group` every
// process's). Keras keeps them per replica and reads their mean (ON_READ, MEAN); their update
// is linear in the batch statistics, so averaging after every step gives the same values.
void averageStates(std::vector<std::unique_ptr<Replica>>& replicas, ProcessGroup* group,
                   nn::Sequential* also = nullptr);

} // namespace strata::distribute
