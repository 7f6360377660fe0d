#pragma once
// Rendezvous: the small key/value store over TCP that the tasks of one job meet through
// (Gloo's contexts bootstrap from it; Debian's Gloo has no TCP store). The chief hosts it at
// the address the cluster spec gives the chief, bound to that address only.
//
// Every frame carries the job's secret token (handed to each task on stdin by the
// launcher). A connection whose frame lacks it, carries a wrong one, is malformed or
// oversized, or sends nothing within a few seconds is dropped; the job is unaffected.
//
// The store also watches the tasks: each client joins under its task name and sends a
// heartbeat; the server knows who left cleanly, who vanished (connection closed without a
// goodbye: killed, crashed) and who went silent (stopped). That is how a failed collective
// names the task that was lost.
//
// The server also tells its time ('T'): each heartbeat is such an exchange, from which every
// task estimates its clock's offset to the chief's (the step timeline's job clock).
//
// The frames: rendezvous_frames.h.

#include "strata/core/clock_offset.h"
#include "strata/core/error.h"
#include "strata/core/posix_handles.h"
#include "strata/distribute/rendezvous_frames.h"

#include <gloo/rendezvous/store.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace strata::distribute {

class RendezvousServer {
public:
    // Listens on host:port (port 0: any free port, see port()). Throws IoError naming the
    // address when it cannot bind. `silentAfter`: a joined task without a heartbeat for this
    // long is reported as not responding.
    RendezvousServer(const std::string& host, int port, std::string token,
                     std::chrono::milliseconds silentAfter = std::chrono::milliseconds(3000));
    ~RendezvousServer();
    RendezvousServer(const RendezvousServer&) = delete;
    RendezvousServer& operator=(const RendezvousServer&) = delete;

    int port() const { return m_port; }
    // Connections dropped so far for a missing or wrong token or a malformed frame.
    int refusedConnections() const { return m_refused.load(); }
    // "worker:1 (connection lost without a goodbye: killed or crashed)" for every task lost
    // or silent, first lost first; empty when every task that joined is well.
    std::vector<std::string> lostTasks() const;
    // Waits, at most `timeout`, until every task that joined has left (said goodbye, failed
    // or gone): the task hosting the rendezvous ends only then, so that its going cuts no
    // exchange a peer is still finishing.
    void waitUntilAllLeft(std::chrono::milliseconds timeout);

private:
    struct TaskState {
        bool connected = false;
        bool saidGoodbye = false;
        std::string failure; // left because of its own error
        std::string peer;    // the address it joined from: lost tasks are named with it
        std::chrono::steady_clock::time_point lastSeen;
        std::chrono::steady_clock::time_point lostAt;
    };
    void acceptLoop();
    void serve(UniqueFd connection);
    std::vector<std::string> lostTasksLocked() const;
    std::string answer(const std::string& task, char op, const std::vector<std::string>& args);

    std::string m_token;
    std::chrono::milliseconds m_silentAfter;
    UniqueFd m_listenFd;
    int m_port = 0;
    std::atomic<bool> m_stopping{false};
    std::atomic<int> m_refused{0};
    std::atomic<int> m_unauthenticated{0};
    mutable std::mutex m_mutex;
    std::condition_variable m_left; // a task said goodbye or went
    std::map<std::string, std::vector<char>> m_values;
    std::map<std::string, TaskState> m_tasks;
    std::vector<int> m_clientFds; // the live connections' descriptors, to shut down on stop
    std::vector<std::thread> m_threads;
    std::thread m_acceptThread;
};

// A task's connection to the rendezvous, usable as Gloo's store. Keys are rank numbers
// (with any prefix before a '/'), so a wait that times out names the missing tasks.
class RendezvousClient final : public gloo::rendezvous::Store {
public:
    // Connects to host:port (retrying until `timeout`: the chief may start after us) and
    // joins as taskNames[rank]. Throws CollectiveError naming the chief's task and address
    // when it cannot be reached in time.
    RendezvousClient(const std::string& host, int port, std::string token, std::vector<std::string> taskNames,
                     int rank, std::chrono::milliseconds timeout);
    ~RendezvousClient() override;

    void set(const std::string& key, const std::vector<char>& data) override;
    std::vector<char> get(const std::string& key) override;
    void wait(const std::vector<std::string>& keys) override;
    void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override;
    // How long get() and wait() wait from now on.
    void setTimeout(std::chrono::milliseconds timeout) { m_timeout = timeout; }
    // While the tasks join, every wait lasts `allowance`, whatever its caller asks (Gloo
    // passes its collective timeout); 0 once they have joined.
    void setJoinAllowance(std::chrono::milliseconds allowance) { m_joinAllowance = allowance; }

    // The server's lostTasks(); when the server itself is gone, the chief that hosted it.
    std::vector<std::string> lostTasks();
    // Microseconds to add to this task's clock to read the server's (the chief's): sampled a
    // few times on joining, then with every heartbeat.
    int64_t clockOffsetUs() const { return m_clock.offsetUs(); }
    // Tells the server this task is leaving: on purpose (not to be reported as lost), or
    // because of its own `failure` (reported with it).
    void goodbye(const std::string& failure = "");

private:
    std::string request(char op, const std::vector<std::string>& args);
    void heartbeatLoop();
    // One exchange of clocks with the server ('T'), into m_clock.
    void sampleClock();

    std::string m_host;
    int m_port;
    std::string m_token;
    std::vector<std::string> m_taskNames;
    int m_rank;
    std::chrono::milliseconds m_timeout;
    std::chrono::milliseconds m_joinAllowance{0};
    UniqueFd m_fd;
    std::mutex m_mutex; // one request at a time on the socket
    std::atomic<bool> m_stopping{false};
    std::mutex m_stopMutex;
    std::condition_variable m_stopChanged;
    ClockOffset m_clock; // written by the constructor, then the heartbeat thread only
    std::thread m_heartbeat;
};

} // namespace strata::distribute
