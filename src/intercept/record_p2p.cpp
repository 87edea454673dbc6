// Point-to-point calls, recorded (CHOREO_RECORD): blocking, nonblocking and persistent sends
// and receives. Each wrapper is MPI's own call when not recording.
#include "next.hpp"
#include "persistent_requests.hpp"
#include "record.hpp"

namespace choreo::intercept::record {
namespace {

using trace::Kind;

/// A message's fields: communicator, peer and tag in the trace's spelling, bytes.
void message(trace::Event& e, std::uint32_t comm, int rank, int message_tag, std::int64_t size) {
  e.comm = comm;
  e.peer = peer(rank);
  e.tag = tag(message_tag);
  e.bytes = size;
}

int send(int (*mpi)(const void*, int, MPI_Datatype, int, int, MPI_Comm), const void* buf, int count,
         MPI_Datatype type, int dest, int message_tag, MPI_Comm comm) {
  if (!on()) return mpi(buf, count, type, dest, message_tag, comm);
  const std::uint32_t id = comm_id(comm);
  const std::int64_t start = now_ns();
  const int result = mpi(buf, count, type, dest, message_tag, comm);
  write(Kind::Send, start,
        [&](trace::Event& e) { message(e, id, dest, message_tag, bytes(count, type)); });
  return result;
}

/// Isend, Issend, Irecv and the persistent inits: a call that makes a request.
template <class Call>
int request_call(Kind kind, bool receive, const Call& call, int count, MPI_Datatype type, int rank,
                 int message_tag, MPI_Comm comm, MPI_Request* request) {
  if (!on()) return call();
  const std::uint32_t id = comm_id(comm);
  const std::int64_t start = now_ns();
  const int result = call();
  const bool persistent = kind == Kind::SendInit || kind == Kind::RecvInit;
  write(kind, start, [&](trace::Event& e) {
    message(e, id, rank, message_tag, bytes(count, type));
    e.request = new_request(*request, receive, persistent);
  });
  return result;
}

}  // namespace
}  // namespace choreo::intercept::record

using namespace choreo::intercept;
using choreo::trace::Kind;

extern "C" int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                        MPI_Comm comm) {
  return record::send(next::Send, buf, count, type, dest, tag, comm);
}

extern "C" int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm) {
  return record::send(next::Ssend, buf, count, type, dest, tag, comm);
}

extern "C" int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                        MPI_Status* status) {
  if (!record::on()) return next::Recv(buf, count, type, source, tag, comm, status);
  const std::uint32_t id = record::comm_id(comm);
  MPI_Status own;
  MPI_Status* kept = status == MPI_STATUS_IGNORE ? &own : status;
  const std::int64_t start = now_ns();
  const int result = next::Recv(buf, count, type, source, tag, comm, kept);
  record::write(Kind::Recv, start, [&](choreo::trace::Event& e) {
    record::message(e, id, source, tag, record::bytes(count, type));
    e.status = record::status(*kept);
  });
  return result;
}

namespace {

/// MPI_Sendrecv and MPI_Sendrecv_replace, recorded: `call` runs with the status to fill.
template <class Call>
int sendrecv(const Call& call, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
             int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
             MPI_Status* status) {
  const std::uint32_t id = record::comm_id(comm);
  MPI_Status own;
  MPI_Status* kept = status == MPI_STATUS_IGNORE ? &own : status;
  const std::int64_t start = now_ns();
  const int result = call(kept);
  record::write(Kind::Sendrecv, start, [&](choreo::trace::Event& e) {
    record::message(e, id, dest, sendtag, record::bytes(sendcount, sendtype));
    e.recv_peer = record::peer(source);
    e.recv_tag = record::tag(recvtag);
    e.recv_bytes = record::bytes(recvcount, recvtype);
    e.status = record::status(*kept);
  });
  return result;
}

}  // namespace

extern "C" int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                            int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                            int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  auto call = [&](MPI_Status* kept) {
    return next::Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                          source, recvtag, comm, kept);
  };
  if (!record::on()) return call(status);
  return sendrecv(call, sendcount, sendtype, dest, sendtag, recvcount, recvtype, source, recvtag,
                  comm, status);
}

extern "C" int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag,
                                    int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  auto call = [&](MPI_Status* kept) {
    return next::Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, kept);
  };
  if (!record::on()) return call(status);
  return sendrecv(call, count, type, dest, sendtag, count, type, source, recvtag, comm, status);
}

extern "C" int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm, MPI_Request* request) {
  return record::request_call(
      Kind::Isend, false, [&] { return next::Isend(buf, count, type, dest, tag, comm, request); },
      count, type, dest, tag, comm, request);
}

extern "C" int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                          MPI_Comm comm, MPI_Request* request) {
  return record::request_call(
      Kind::Isend, false, [&] { return next::Issend(buf, count, type, dest, tag, comm, request); },
      count, type, dest, tag, comm, request);
}

extern "C" int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag,
                         MPI_Comm comm, MPI_Request* request) {
  return record::request_call(
      Kind::Irecv, true, [&] { return next::Irecv(buf, count, type, source, tag, comm, request); },
      count, type, source, tag, comm, request);
}

extern "C" int MPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                             MPI_Comm comm, MPI_Request* request) {
  return record::request_call(
      Kind::SendInit, false,
      [&] { return next::Send_init(buf, count, type, dest, tag, comm, request); }, count, type,
      dest, tag, comm, request);
}

extern "C" int MPI_Ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag,
                              MPI_Comm comm, MPI_Request* request) {
  return record::request_call(
      Kind::SendInit, false,
      [&] { return next::Ssend_init(buf, count, type, dest, tag, comm, request); }, count, type,
      dest, tag, comm, request);
}

extern "C" int MPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag,
                             MPI_Comm comm, MPI_Request* request) {
  return record::request_call(
      Kind::RecvInit, true,
      [&] { return next::Recv_init(buf, count, type, source, tag, comm, request); }, count, type,
      source, tag, comm, request);
}

extern "C" int MPI_Startall(int count, MPI_Request requests[]) {
  if (!record::on()) return persistent::Startall(count, requests);
  const std::int64_t start = now_ns();
  const int result = persistent::Startall(count, requests);
  record::write(Kind::Start, start, [&](choreo::trace::Event& e) {
    for (int i = 0; i < count; ++i)
      if (const std::uint64_t id = record::started(requests[i])) e.requests.push_back(id);
  });
  return result;
}

extern "C" int MPI_Start(MPI_Request* request) {
  if (!record::on()) return persistent::Start(request);
  const std::int64_t start = now_ns();
  const int result = persistent::Start(request);
  record::write(Kind::Start, start, [&](choreo::trace::Event& e) {
    if (const std::uint64_t id = record::started(*request)) e.requests.push_back(id);
  });
  return result;
}

extern "C" int MPI_Request_free(MPI_Request* request) {
  if (!record::on()) return persistent::Request_free(request);
  const MPI_Request before = *request;
  const std::int64_t start = now_ns();
  const int result = persistent::Request_free(request);
  record::write(Kind::RequestFree, start,
                [&](choreo::trace::Event& e) { e.request = record::freed(before); });
  return result;
}
