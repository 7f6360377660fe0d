#pragma once
// Owning handles for libssh's C objects: each is freed by its own function when the handle
// goes. A channel must go before its session, and an event before the sessions in it.

#include <libssh/libssh.h>

#include <memory>

namespace strata::app::ssh {

namespace detail {
struct SessionFree { void operator()(ssh_session s) const { ssh_free(s); } };
struct ChannelFree { void operator()(ssh_channel c) const { ssh_channel_free(c); } };
struct KeyFree { void operator()(ssh_key k) const { ssh_key_free(k); } };
struct EventFree { void operator()(ssh_event e) const { ssh_event_free(e); } };
struct KnownHostsEntryFree {
    void operator()(ssh_knownhosts_entry* e) const { ssh_knownhosts_entry_free(e); }
};
struct CharFree { void operator()(char* s) const { ssh_string_free_char(s); } };
} // namespace detail

using SessionHandle = std::unique_ptr<ssh_session_struct, detail::SessionFree>;
using ChannelHandle = std::unique_ptr<ssh_channel_struct, detail::ChannelFree>;
using KeyHandle = std::unique_ptr<ssh_key_struct, detail::KeyFree>;
using EventHandle = std::unique_ptr<ssh_event_struct, detail::EventFree>;
using KnownHostsEntryHandle = std::unique_ptr<ssh_knownhosts_entry, detail::KnownHostsEntryFree>;
// Strings libssh allocates (fingerprints, known_hosts lines).
using SshString = std::unique_ptr<char, detail::CharFree>;

} // namespace strata::app::ssh
