! A Fortran program (use mpi) under libchoreo_pmpi.so: Open MPI's Fortran bindings call PMPI_*
! directly and MPICH's call MPI_*; the library must take the calls either way. Each rank checks
! what it received against a formula (every rank knows what every other sent), and the test's
! CHOREO_REPORT must show choreo's calls.
program intercept_fortran
  use mpi
  implicit none
  integer :: ierr, rank, ranks, i, call_number, failures, total_failures
  integer, allocatable :: sendcounts(:), sdispls(:), recvcounts(:), rdispls(:)
  integer, allocatable :: sendbuf(:), recvbuf(:)
  double precision :: mine, total

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierr)
  allocate(sendcounts(ranks), sdispls(ranks), recvcounts(ranks), rdispls(ranks))
  ! Rank r sends r + d + 1 integers to rank d (an irregular pattern), each r * 1000 + d.
  do i = 1, ranks
    sendcounts(i) = rank + i
    recvcounts(i) = (i - 1) + rank + 1
  end do
  sdispls(1) = 0
  rdispls(1) = 0
  do i = 2, ranks
    sdispls(i) = sdispls(i - 1) + sendcounts(i - 1)
    rdispls(i) = rdispls(i - 1) + recvcounts(i - 1)
  end do
  allocate(sendbuf(sum(sendcounts)), recvbuf(sum(recvcounts)))
  do i = 1, ranks
    sendbuf(sdispls(i) + 1:sdispls(i) + sendcounts(i)) = rank * 1000 + (i - 1)
  end do

  failures = 0
  do call_number = 1, 6
    recvbuf = -1
    call MPI_Alltoallv(sendbuf, sendcounts, sdispls, MPI_INTEGER, recvbuf, recvcounts, rdispls, &
                       MPI_INTEGER, MPI_COMM_WORLD, ierr)
    do i = 1, ranks
      if (any(recvbuf(rdispls(i) + 1:rdispls(i) + recvcounts(i)) /= (i - 1) * 1000 + rank)) then
        failures = failures + 1
        print *, 'intercept_fortran: rank', rank, 'call', call_number, 'wrong data from', i - 1
      end if
    end do
  end do

  mine = rank + 1
  call MPI_Allreduce(mine, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (total /= ranks * (ranks + 1) / 2) failures = failures + 1
  call MPI_Reduce(failures, total_failures, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (total_failures == 0) then
      print '(a)', 'intercept_fortran: OK'
    else
      print '(a, i0, a)', 'intercept_fortran: ', total_failures, ' checks FAILED'
    end if
  end if
  call MPI_Finalize(ierr)
end program intercept_fortran
