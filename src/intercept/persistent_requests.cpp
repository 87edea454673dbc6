#include "persistent_requests.hpp"

#include <fmt/format.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <new>
#include <shared_mutex>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "next.hpp"
#include "runtime.hpp"

namespace choreo::intercept::persistent {
namespace {

/// A counting filter over the registered handles: a handle whose slot counts 0 is not the
/// library's, which MPI_Start and the completion calls on MPI's own requests learn from one
/// atomic load instead of the registry's shared lock and hash lookup (persistent_mpi4_bench,
/// Open MPI's own requests at 8 B through the library while choreo's exist: 1.04-1.11x
/// MPIX_Gather_init's time before, 1.01-1.04x with the filter).
constexpr std::size_t kFilterSlots = 4096;

/// A handle's bits: Open MPI's is a pointer, MPICH's an int (a template, so that only the
/// branch of this MPI's handle type is compiled).
template <class Handle>
std::uint64_t handle_bits(Handle handle) {
  if constexpr (std::is_pointer_v<Handle>)
    return reinterpret_cast<std::uintptr_t>(handle);
  else
    return static_cast<std::uint64_t>(handle);
}

std::size_t filter_slot(MPI_Request handle) {
  return static_cast<std::size_t>((handle_bits(handle) * 0x9E3779B97F4A7C15ull) >> 52);
}

struct Registry {
  std::shared_mutex mutex;
  std::unordered_map<MPI_Request, std::unique_ptr<Owned>> requests;  // guarded by mutex
  std::atomic<int> count{0};
  std::array<std::atomic<std::uint32_t>, kFilterSlots> filter{};  // changed under mutex
};
static_assert(std::size_t{1} << 12 == kFilterSlots);

Registry& registry() {
  // Never destroyed: a program that exits without MPI_Finalize must not have the requests'
  // destructors call MPI at exit.
  static Registry* const instance = new Registry;
  return *instance;
}

/// Runs one entry point: an exception (memory exhausted) must not cross the C interface.
template <class Body>
int guarded(Body body) {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    say("out of memory in a persistent collective's call");
    return MPI_ERR_NO_MEM;
  } catch (...) {
    say("an unexpected error in a persistent collective's call");
    return MPI_ERR_OTHER;
  }
}

Owned* find(MPI_Request handle) {
  if (handle == MPI_REQUEST_NULL) return nullptr;
  Registry& r = registry();
  if (r.filter[filter_slot(handle)].load(std::memory_order_acquire) == 0) return nullptr;
  std::shared_lock lock(r.mutex);
  const auto found = r.requests.find(handle);
  return found == r.requests.end() ? nullptr : found->second.get();
}

/// Says what went wrong, then raises `code` on the request's communicator as MPI would (with
/// MPI_ERRORS_ARE_FATAL the program stops there; with MPI_ERRORS_RETURN the code comes back).
int fail(const Owned& owned, int code, const std::string& what) {
  say(fmt::format("{}: {}", owned.call(), what));
  PMPI_Comm_call_errhandler(owned.comm(), code);
  return code;
}

/// The status of a completed persistent collective: MPI's empty status, which MPI itself
/// writes for the handle (an inactive request to MPI).
void empty_status(MPI_Request handle, MPI_Status* status) {
  if (status == MPI_STATUS_IGNORE) return;
  MPI_Request copy = handle;
  next::Wait(&copy, status);
  status->MPI_ERROR = MPI_SUCCESS;  // read where a call returns MPI_ERR_IN_STATUS
}

int start(Owned& owned) {
  if (owned.active)
    return fail(owned, MPI_ERR_REQUEST,
                "started while still active: complete the previous start with MPI_Wait or "
                "MPI_Test (or their all/any/some forms) before starting the request again");
  const int code = owned.start();
  if (code != MPI_SUCCESS) return fail(owned, code, "the collective could not be started");
  owned.active = true;
  owned.done = false;
  return MPI_SUCCESS;
}

/// Moves an active, not yet done request on; an MPI error code.
int progress(Owned& owned) {
  if (!owned.active || owned.done) return MPI_SUCCESS;
  const int code = owned.progress(owned.done);
  if (code != MPI_SUCCESS) return fail(owned, code, "the collective failed");
  return MPI_SUCCESS;
}

/// Reports a done request complete: it is inactive again, ready for the next start.
void complete(Owned& owned) {
  owned.active = false;
  owned.done = false;
}

/// The registered requests among `requests`, with their positions.
std::vector<std::pair<int, Owned*>> owned_among(int count, const MPI_Request requests[]) {
  std::vector<std::pair<int, Owned*>> found;
  if (!any()) return found;
  for (int i = 0; i < count; ++i)
    if (Owned* owned = find(requests[i])) found.emplace_back(i, owned);
  return found;
}

/// `requests` with the registered ones replaced by MPI_REQUEST_NULL, for MPI's any/some calls
/// (which would otherwise report them complete at once).
std::vector<MPI_Request> without(int count, const MPI_Request requests[],
                                 const std::vector<std::pair<int, Owned*>>& owned) {
  std::vector<MPI_Request> rest(requests, requests + count);
  for (const auto& [index, request] : owned)
    rest[static_cast<std::size_t>(index)] = MPI_REQUEST_NULL;
  return rest;
}

/// After MPI's any/some call on `rest`: every entry that is not the library's own takes what
/// MPI left there (MPI_REQUEST_NULL for a completed or failed non-persistent request).
void copy_back(const std::vector<MPI_Request>& rest, MPI_Request requests[],
               const std::vector<std::pair<int, Owned*>>& owned) {
  std::size_t next_owned = 0;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    if (next_owned < owned.size() && static_cast<std::size_t>(owned[next_owned].first) == i)
      ++next_owned;
    else
      requests[i] = rest[i];
  }
}

}  // namespace

int adopt(std::unique_ptr<Owned> owned, MPI_Request* handle) {
  // Never started, so MPI keeps it inactive: a null-free, unique handle of MPI's own.
  const int code = next::Send_init(nullptr, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, handle);
  if (code != MPI_SUCCESS) return code;
  try {
    Registry& r = registry();
    std::unique_lock lock(r.mutex);
    r.requests.emplace(*handle, std::move(owned));
    r.filter[filter_slot(*handle)].fetch_add(1, std::memory_order_release);
    r.count.fetch_add(1, std::memory_order_release);
  } catch (const std::bad_alloc&) {
    next::Request_free(handle);
    return MPI_ERR_NO_MEM;
  }
  return MPI_SUCCESS;
}

bool any() { return registry().count.load(std::memory_order_acquire) > 0; }

int Start(MPI_Request* request) {
  Owned* owned = any() ? find(*request) : nullptr;
  return owned == nullptr ? next::Start(request) : start(*owned);
}

int Startall(int count, MPI_Request requests[]) {
  if (!any()) return next::Startall(count, requests);
  return guarded([&]() -> int {
    const auto owned = owned_among(count, requests);
    if (owned.empty()) return next::Startall(count, requests);
    // Refused before anything starts, so that an error leaves every request as it was.
    for (const auto& [index, request] : owned)
      if (request->active) return start(*request);
    std::vector<MPI_Request> rest;
    std::size_t next_owned = 0;
    for (int i = 0; i < count; ++i) {
      if (next_owned < owned.size() && owned[next_owned].first == i)
        ++next_owned;
      else
        rest.push_back(requests[i]);
    }
    if (!rest.empty()) {
      const int code = next::Startall(static_cast<int>(rest.size()), rest.data());
      if (code != MPI_SUCCESS) return code;
    }
    for (const auto& [index, request] : owned)
      if (const int code = start(*request); code != MPI_SUCCESS) return code;
    return MPI_SUCCESS;
  });
}

int Request_free(MPI_Request* request) {
  Owned* owned = any() ? find(*request) : nullptr;
  if (owned == nullptr) return next::Request_free(request);
  if (owned->active)
    return fail(*owned, MPI_ERR_REQUEST,
                "freed while active: complete it with MPI_Wait or MPI_Test first (MPI does not "
                "let a started persistent collective be freed)");
  if (const int code = owned->release(); code != MPI_SUCCESS)
    return fail(*owned, code, "its resources could not be released");
  {
    Registry& r = registry();
    std::unique_lock lock(r.mutex);
    r.requests.erase(*request);
    r.filter[filter_slot(*request)].fetch_sub(1, std::memory_order_release);
    r.count.fetch_sub(1, std::memory_order_release);
  }
  return next::Request_free(request);
}

int Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  Owned* owned = any() ? find(request) : nullptr;
  if (owned == nullptr) return next::Request_get_status(request, flag, status);
  if (const int code = progress(*owned); code != MPI_SUCCESS) return code;
  // Neither completes nor deactivates: a later wait or test still reports it.
  *flag = !owned->active || owned->done;
  if (*flag) empty_status(request, status);
  return MPI_SUCCESS;
}

int Test(MPI_Request* request, int* flag, MPI_Status* status) {
  Owned* owned = any() ? find(*request) : nullptr;
  if (owned == nullptr) return next::Test(request, flag, status);
  if (const int code = progress(*owned); code != MPI_SUCCESS) return code;
  *flag = !owned->active || owned->done;
  if (*flag) {
    complete(*owned);
    empty_status(*request, status);
  }
  return MPI_SUCCESS;
}

int Wait(MPI_Request* request, MPI_Status* status) {
  Owned* owned = any() ? find(*request) : nullptr;
  if (owned == nullptr) return next::Wait(request, status);
  if (owned->active && !owned->done) {
    if (const int code = owned->finish(); code != MPI_SUCCESS)
      return fail(*owned, code, "the collective failed");
    owned->done = true;
  }
  complete(*owned);
  empty_status(*request, status);
  return MPI_SUCCESS;
}

int Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  if (!any()) return next::Testall(count, requests, flag, statuses);
  return guarded([&]() -> int {
    const auto owned = owned_among(count, requests);
    if (owned.empty()) return next::Testall(count, requests, flag, statuses);
    bool all_done = true;
    for (const auto& [index, request] : owned) {
      if (const int code = progress(*request); code != MPI_SUCCESS) return code;
      all_done = all_done && (!request->active || request->done);
    }
    *flag = 0;
    // MPI's Testall completes all or nothing: it may see the rest only once ours are done.
    if (!all_done) return MPI_SUCCESS;
    const int code = next::Testall(count, requests, flag, statuses);
    if (*flag)
      for (const auto& [index, request] : owned) complete(*request);
    return code;
  });
}

int Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (!any()) return next::Waitall(count, requests, statuses);
  return guarded([&]() -> int {
    const auto owned = owned_among(count, requests);
    if (owned.empty()) return next::Waitall(count, requests, statuses);
    // Every progress call drives MPI's progress engine too, so the rest move on meanwhile.
    for (bool all_done = false; !all_done;) {
      all_done = true;
      for (const auto& [index, request] : owned) {
        if (const int code = progress(*request); code != MPI_SUCCESS) return code;
        all_done = all_done && (!request->active || request->done);
      }
    }
    for (const auto& [index, request] : owned) complete(*request);
    // Ours are inactive requests to MPI now: it writes their empty statuses itself.
    return next::Waitall(count, requests, statuses);
  });
}

namespace {

using OwnedList = std::vector<std::pair<int, Owned*>>;

/// One Testany over `requests`, whose registered ones are `owned` and whose others are `rest`
/// (without()): a wait computes both once and polls this, rather than looking every handle up
/// again on every poll.
int test_any_among(int count, MPI_Request requests[], const OwnedList& owned,
                   std::vector<MPI_Request>& rest, int* index, int* flag, MPI_Status* status) {
  bool any_active = false;
  for (const auto& [position, request] : owned) {
    if (const int code = progress(*request); code != MPI_SUCCESS) return code;
    if (request->active && request->done) {
      complete(*request);
      empty_status(requests[position], status);
      *index = position;
      *flag = 1;
      return MPI_SUCCESS;
    }
    any_active = any_active || request->active;
  }
  const int code = next::Testany(count, rest.data(), index, flag, status);
  copy_back(rest, requests, owned);
  // MPI found nothing active among the rest, but ours are still running.
  if (code == MPI_SUCCESS && *flag && *index == MPI_UNDEFINED && any_active) *flag = 0;
  return code;
}

/// One Testsome, as test_any_among.
int test_some_among(MPI_Request requests[], const OwnedList& owned, std::vector<MPI_Request>& rest,
                    int* outcount, int indices[], MPI_Status statuses[]) {
  int found = 0;
  const int code =
      next::Testsome(static_cast<int>(rest.size()), rest.data(), &found, indices, statuses);
  copy_back(rest, requests, owned);
  const bool rest_inactive = found == MPI_UNDEFINED;
  if (rest_inactive) found = 0;
  *outcount = found;  // what MPI completed is reported whatever happens next
  if (code != MPI_SUCCESS && code != MPI_ERR_IN_STATUS) return code;
  bool any_active = false;
  for (const auto& [position, request] : owned) {
    if (const int failed = progress(*request); failed != MPI_SUCCESS) return failed;
    if (request->active && request->done) {
      complete(*request);
      if (statuses != MPI_STATUSES_IGNORE) empty_status(requests[position], &statuses[found]);
      indices[found++] = position;
      *outcount = found;
    }
    any_active = any_active || request->active;
  }
  if (found == 0 && rest_inactive && !any_active) *outcount = MPI_UNDEFINED;
  return code;
}

}  // namespace

int Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  if (!any()) return next::Testany(count, requests, index, flag, status);
  return guarded([&]() -> int {
    const OwnedList owned = owned_among(count, requests);
    if (owned.empty()) return next::Testany(count, requests, index, flag, status);
    std::vector<MPI_Request> rest = without(count, requests, owned);
    return test_any_among(count, requests, owned, rest, index, flag, status);
  });
}

int Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  if (!any()) return next::Waitany(count, requests, index, status);
  return guarded([&]() -> int {
    const OwnedList owned = owned_among(count, requests);
    if (owned.empty()) return next::Waitany(count, requests, index, status);
    std::vector<MPI_Request> rest = without(count, requests, owned);
    for (int flag = 0;;) {
      const int code = test_any_among(count, requests, owned, rest, index, &flag, status);
      if (code != MPI_SUCCESS || flag) return code;
    }
  });
}

int Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
             MPI_Status statuses[]) {
  if (!any()) return next::Testsome(incount, requests, outcount, indices, statuses);
  return guarded([&]() -> int {
    const OwnedList owned = owned_among(incount, requests);
    if (owned.empty()) return next::Testsome(incount, requests, outcount, indices, statuses);
    std::vector<MPI_Request> rest = without(incount, requests, owned);
    return test_some_among(requests, owned, rest, outcount, indices, statuses);
  });
}

int Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
             MPI_Status statuses[]) {
  if (!any()) return next::Waitsome(incount, requests, outcount, indices, statuses);
  return guarded([&]() -> int {
    const OwnedList owned = owned_among(incount, requests);
    if (owned.empty()) return next::Waitsome(incount, requests, outcount, indices, statuses);
    std::vector<MPI_Request> rest = without(incount, requests, owned);
    for (;;) {
      const int code = test_some_among(requests, owned, rest, outcount, indices, statuses);
      if ((code != MPI_SUCCESS && code != MPI_ERR_IN_STATUS) || *outcount != 0) return code;
    }
  });
}

}  // namespace choreo::intercept::persistent
