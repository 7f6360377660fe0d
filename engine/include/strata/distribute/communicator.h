#pragma once
// Communicator: collective operations among the ranks of a group. Every rank calls the same
// collectives in the same order, each with its own buffer, and a call returns once the
// collective is complete for that rank (the contract of Gloo and NCCL, whose communicators
// implement this for processes and GPUs). There is no global communicator: whoever needs
// one is given it.

#include "strata/core/error.h"

#include <chrono>
#include <span>
#include <string>

namespace strata::distribute {

enum class ReduceOp { Sum };

struct CollectiveOptions {
    // A rank that does not arrive within this time fails the collective for everyone.
    std::chrono::milliseconds timeout{30000};
    ReduceOp op = ReduceOp::Sum;
};

// A collective that could not complete: a rank did not arrive in time, or the group was
// aborted because one of its ranks failed. The message names the ranks and the operation.
class CollectiveError : public Error {
public:
    using Error::Error;
    const char* kind() const noexcept override { return "collective"; }
};

class Communicator {
public:
    virtual ~Communicator() = default;

    virtual int size() const = 0;
    // How the reductions are done, for the `placement` event.
    virtual std::string algorithm() const = 0;

    // In place: every rank's `data` becomes the element-wise reduction over all ranks.
    virtual void allReduce(int rank, std::span<float> data, const CollectiveOptions& options) = 0;
    // `root`'s data becomes the reduction over all ranks; the others' data is unchanged.
    virtual void reduce(int rank, int root, std::span<float> data, const CollectiveOptions& options) = 0;
    // Every rank's data becomes `root`'s.
    virtual void broadcast(int rank, int root, std::span<float> data, const CollectiveOptions& options) = 0;
    // Returns when every rank has called it.
    virtual void barrier(int rank, const CollectiveOptions& options) = 0;

    // Fails every collective in progress or to come with `reason` (a rank that hit an error
    // calls this so that the others stop waiting for it).
    virtual void abort(const std::string& reason) = 0;
};

} // namespace strata::distribute
