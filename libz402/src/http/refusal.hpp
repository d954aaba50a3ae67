#pragma once
// A connection past the server's connection limit, refused at once rather than left in the
// kernel's backlog: a client that meets a full server learns so within a round trip and can go
// elsewhere or come back, and a queue of connections nobody serves never builds up.
#include <boost/asio/ip/tcp.hpp>

namespace z402::http {

/// Refuses `socket`: over plain HTTP it answers 503 with the `overloaded` error and
/// Retry-After: 1, then reads and drops what the client sent until the client closes or a second
/// passes (closing with its request unread would reset the connection and could lose the answer);
/// over TLS (`tls`) it closes at once (a handshake would cost more than the refusal is worth), so
/// the client's handshake fails.
void refuse_connection(boost::asio::ip::tcp::socket socket, bool tls);

}  // namespace z402::http
