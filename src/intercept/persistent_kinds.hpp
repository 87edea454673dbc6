#pragma once
// The two kinds of persistent collective the library runs itself (persistent_requests.hpp):
// Emulated posts the MPI library's nonblocking collective at every start (an MPI-3.1 library
// without MPI-4's functions or Open MPI's MPIX_ ones, or CHOREO_PERSISTENT=nonblocking);
// ChoreoCollective runs a choreo::persist::Request (CHOREO_PERSISTENT=choreo).
#include <mpi.h>

#include <functional>
#include <type_traits>
#include <vector>

#include "choreo/persist/request.hpp"
#include "persistent_requests.hpp"

namespace choreo::intercept::persistent {

/// `type` itself when predefined, else a duplicate added to `duplicates` (MPI_Type_dup is
/// local): MPI lets the caller free its datatypes once init returned, so a request that keeps
/// using a type holds its own.
MPI_Datatype held_type(MPI_Datatype type, std::vector<MPI_Datatype>& duplicates);
/// Frees and clears the duplicates.
void free_types(std::vector<MPI_Datatype>& duplicates);

class Emulated final : public Owned {
 public:
  /// Posts one instance of the nonblocking collective into the given request.
  using Post = std::function<int(MPI_Request*)>;
  using Owned::Owned;

  /// A copy of `count` entries of `values`, kept as long as the request (MPI lets the caller
  /// reuse its count and displacement arrays once init returned). nullptr stays nullptr.
  template <class T>
  const T* keep(const T* values, int count);

  /// held_type(), owned by the request until it is freed.
  MPI_Datatype hold(MPI_Datatype type) { return held_type(type, duplicates_); }
  /// hold() of each of `count` types, kept as keep() keeps arrays.
  const MPI_Datatype* hold(const MPI_Datatype* types, int count);

  Post post;
  int start() override { return post(&inner_); }
  int progress(bool& finished) override;
  int finish() override;
  int release() override;

 private:
  std::vector<MPI_Datatype> duplicates_;
  std::vector<std::vector<int>> ints_;
  std::vector<std::vector<MPI_Aint>> aints_;
  std::vector<std::vector<MPI_Count>> counts_;
  std::vector<std::vector<MPI_Datatype>> types_;
  MPI_Request inner_ = MPI_REQUEST_NULL;
};

class ChoreoCollective final : public Owned {
 public:
  ChoreoCollective(const char* call, MPI_Comm comm, persist::Request request,
                   std::vector<MPI_Datatype> duplicates)
      : Owned(call, comm), request_(std::move(request)), duplicates_(std::move(duplicates)) {}
  int start() override;
  int progress(bool& finished) override;
  int finish() override;
  int release() override;

 private:
  persist::Request request_;
  std::vector<MPI_Datatype> duplicates_;  ///< held_type()'s, freed after the request
};

template <class T>
const T* Emulated::keep(const T* values, int count) {
  if (values == nullptr) return nullptr;
  std::vector<T> copy(values, values + (count > 0 ? count : 0));
  auto& store = [this]() -> std::vector<std::vector<T>>& {
    if constexpr (std::is_same_v<T, int>)
      return ints_;
    else if constexpr (std::is_same_v<T, MPI_Aint>)
      return aints_;
    else if constexpr (std::is_same_v<T, MPI_Count>)  // where it is not MPI_Aint's type
      return counts_;
    else
      return types_;
  }();
  // A moved vector keeps its buffer, so pointers handed out stay valid as the store grows.
  store.push_back(std::move(copy));
  return store.back().empty() ? values : store.back().data();
}

}  // namespace choreo::intercept::persistent
