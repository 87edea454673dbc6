// Communicator creation, recorded (CHOREO_RECORD): the new communicator's members as world
// ranks, so that `choreo import` can translate its ranks and match its messages. Each call is
// collective over its parent, so the n-th creation on a parent is the same call on every
// member of it: that, and the members, name the communicator across the ranks.
#include "next.hpp"
#include "record.hpp"

using namespace choreo::intercept;

namespace {

template <class Call>
int created(MPI_Comm parent, MPI_Comm* made, const Call& call) {
  if (!record::on()) return call();
  const std::int64_t start = now_ns();
  const int result = call();
  if (result == MPI_SUCCESS) record::comm_created(parent, *made, start);
  return result;
}

}  // namespace

extern "C" int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  return created(comm, newcomm, [&] { return next::Comm_dup(comm, newcomm); });
}

extern "C" int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  return created(comm, newcomm, [&] { return next::Comm_split(comm, color, key, newcomm); });
}

extern "C" int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                                   MPI_Comm* newcomm) {
  return created(comm, newcomm,
                 [&] { return next::Comm_split_type(comm, split_type, key, info, newcomm); });
}

extern "C" int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  return created(comm, newcomm, [&] { return next::Comm_create(comm, group, newcomm); });
}

extern "C" int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[],
                               int reorder, MPI_Comm* comm_cart) {
  return created(comm, comm_cart,
                 [&] { return next::Cart_create(comm, ndims, dims, periods, reorder, comm_cart); });
}
