! A Fortran program that uses ScaLAPACK's redistribution as its users do: BLACS_GRIDINIT,
! DESCINIT, NUMROC, then PDGEMR2D, PZGEMR2D and PDTRMR2D on submatrices at offsets, from a
! 1 x P grid to a P x 1 grid and back, linked with libchoreo_scalapack.so before ScaLAPACK.
! Every element of every target is checked against the source's global index, the untouched
! ones too. Prints "scalapack_fortran_user: OK" on process 0.
program scalapack_fortran_user
  use mpi
  implicit none
  integer, external :: numroc
  integer :: me, procs, all, row, column, info, ierr, failures, total
  integer :: desca(9), descb(9), descz(9), descw(9)
  integer :: nprow, npcol, myrow, mycol, arows, acols, brows, bcols, lda, ldb, i, j, k
  integer, parameter :: m = 20, n = 25, ia = 3, ja = 2, ib = 5, jb = 4
  double precision, allocatable :: a(:,:), b(:,:)
  complex(kind=8), allocatable :: z(:,:), w(:,:)

  call mpi_init(ierr)
  call blacs_pinfo(me, procs)
  call blacs_get(-1, 0, all)
  call blacs_gridinit(all, 'Row', 1, procs)
  call blacs_get(-1, 0, row)
  call blacs_gridinit(row, 'Row', 1, procs)
  call blacs_get(-1, 0, column)
  call blacs_gridinit(column, 'Col', procs, 1)
  failures = 0

  ! A: 37 x 29 in 3 x 3 blocks on the row grid, first column on the last process.
  call blacs_gridinfo(row, nprow, npcol, myrow, mycol)
  arows = numroc(37, 3, myrow, 0, nprow)
  acols = numroc(29, 3, mycol, procs - 1, npcol)
  lda = max(1, arows)
  call descinit(desca, 37, 29, 3, 3, 0, procs - 1, row, lda, info)
  allocate(a(lda, max(1, acols)), z(lda, max(1, acols)))
  do j = 1, acols
    do i = 1, arows
      a(i, j) = value_of(global(i, 3, myrow, 0, nprow), global(j, 3, mycol, procs - 1, npcol))
      z(i, j) = cmplx(a(i, j), -a(i, j), kind=8)
    end do
  end do
  call descinit(descz, 37, 29, 3, 3, 0, procs - 1, row, lda, info)

  ! B: 30 x 33 in 5 x 2 blocks on the column grid, a padded leading dimension.
  call blacs_gridinfo(column, nprow, npcol, myrow, mycol)
  brows = numroc(30, 5, myrow, 0, nprow)
  bcols = numroc(33, 2, mycol, 0, npcol)
  ldb = max(1, brows) + 1 + me
  call descinit(descb, 30, 33, 5, 2, 0, 0, column, ldb, info)
  call descinit(descw, 30, 33, 5, 2, 0, 0, column, ldb, info)
  allocate(b(ldb, max(1, bcols)), w(ldb, max(1, bcols)))

  do k = 1, 3
    call reset_b()
    if (k == 3) then
      call pdtrmr2d('L', 'U', m, n, a, ia, ja, desca, b, ib, jb, descb, all)
    else
      call pdgemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, all)
    end if
    call check_b(k == 3)
  end do
  w = (0d0, 0d0)
  call pzgemr2d(m, n, z, ia, ja, descz, w, ib, jb, descw, all)
  do j = 1, bcols
    do i = 1, brows
      call check_z(i, j)
    end do
  end do

  call mpi_allreduce(failures, total, 1, mpi_integer, mpi_sum, mpi_comm_world, ierr)
  if (me == 0 .and. total == 0) print '(a)', 'scalapack_fortran_user: OK'
  call mpi_finalize(ierr)

contains

  integer function global(local, nb, proc, first, nprocs)
    integer, intent(in) :: local, nb, proc, first, nprocs
    integer :: distance
    distance = modulo(proc - first, nprocs)
    global = ((local - 1) / nb * nprocs + distance) * nb + modulo(local - 1, nb) + 1
  end function

  double precision function value_of(gi, gj)
    integer, intent(in) :: gi, gj
    value_of = gi * 1000d0 + gj
  end function

  subroutine reset_b()
    integer :: r, c
    do c = 1, bcols
      do r = 1, brows
        b(r, c) = -value_of(global(r, 5, myrow, 0, nprow), global(c, 2, mycol, 0, npcol))
      end do
    end do
  end subroutine

  ! B(i, j) after the submatrix moved: the lower trapezoid without its diagonal when `lower`.
  subroutine check_b(lower)
    logical, intent(in) :: lower
    integer :: r, c, gi, gj, si, sj
    logical :: moved
    double precision :: want
    do c = 1, bcols
      do r = 1, brows
        gi = global(r, 5, myrow, 0, nprow)
        gj = global(c, 2, mycol, 0, npcol)
        si = gi - ib
        sj = gj - jb
        moved = si >= 0 .and. sj >= 0 .and. si < m .and. sj < n
        if (moved .and. lower) moved = si >= sj - max(n - m, 0) + 1
        if (moved) then
          want = value_of(si + ia, sj + ja)
        else
          want = -value_of(gi, gj)
        end if
        if (b(r, c) /= want) then
          failures = failures + 1
          if (failures < 4) print '(a,2i5)', 'scalapack_fortran_user: FAILED at', gi, gj
        end if
      end do
    end do
  end subroutine

  subroutine check_z(r, c)
    integer, intent(in) :: r, c
    integer :: gi, gj, si, sj
    complex(kind=8) :: want
    gi = global(r, 5, myrow, 0, nprow)
    gj = global(c, 2, mycol, 0, npcol)
    si = gi - ib
    sj = gj - jb
    want = (0d0, 0d0)
    if (si >= 0 .and. sj >= 0 .and. si < m .and. sj < n) &
      want = cmplx(value_of(si + ia, sj + ja), -value_of(si + ia, sj + ja), kind=8)
    if (w(r, c) /= want) then
      failures = failures + 1
      if (failures < 4) print '(a,2i5)', 'scalapack_fortran_user: FAILED (complex) at', gi, gj
    end if
  end subroutine

end program
