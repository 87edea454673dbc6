# Issue 20: every case found by fuzzing and by hand answers with one line naming the problem
# and exit status 1 (tests/expect_failure.sh --one-line), and the inputs that used to fail with
# an internal error now work. Included by tests/cli/CMakeLists.txt (choreo, data, out set).

# cli_rejects_shell(NAME REGEX SCRIPT): the bash SCRIPT fails with one line matching REGEX.
function(cli_rejects_shell name regex script)
  add_test(NAME cli.rejects.${name}
    COMMAND bash ${expect_failure} --one-line "${regex}" bash -c "${script}")
  set_tests_properties(cli.rejects.${name} PROPERTIES LABELS cli)
endfunction()

set(bad ${data}/bad)
set(hockney --alpha 2us --bandwidth 10GBps)

# Internal errors before: a number beyond a double, a name that is not UTF-8, a rank count
# that allocated gigabytes.
cli_rejects(number_beyond_double ${bad}/number_beyond_double.json
  "programs\\[0\\]\\.ops\\[0\\]\\.seconds: number overflow parsing '1e400'; numbers must fit a double")
cli_rejects(algorithm_not_utf8 ${bad}/algorithm_not_utf8.goal
  "line 1: 'algorithm=\\\\xFF' decodes to bytes that are not UTF-8 text")
cli_rejects_args(convert_algorithm_not_utf8 "line 1: 'algorithm=%C0%AF' decodes to bytes that are not UTF-8"
  convert ${bad}/algorithm_not_utf8_escaped.goal -o ${out}/not_utf8.json)
cli_rejects_args(sim_algorithm_not_utf8 "decodes to bytes that are not UTF-8"
  sim ${bad}/algorithm_not_utf8_escaped.goal)
cli_rejects(ranks_beyond_limit ${bad}/ranks_beyond_limit.json
  "top level: \"ranks\" = 2147483647 is out of range: choreo takes 1 to 2\\^24 = 16777216 ranks")
# A pattern with one rank, or with ranks but no messages, schedules (text mode printed a
# null ratio before).
cli_shell(schedule_patterns_without_messages
  "optimal schedule, 1 ranks, 0 messages.*ratio - \\(nothing to send\\).*delay-insertion schedule, 4 ranks, 0 messages.*ratio - \\(nothing to send\\)"
  "'${choreo}' schedule --algo optimal '${data}/one_rank_pattern.json' -o '${out}/one.json' && '${choreo}' schedule --algo delay '${data}/empty_pattern.json' -o '${out}/empty.json'")

# Silently wrong before: a key given twice dropped a dependency; 64-bit sums wrapped.
cli_rejects(duplicate_key ${bad}/duplicate_key.json
  "programs\\[0\\]\\.ops\\[1\\]\\.requires: the key \"requires\" appears twice in one object")
cli_rejects_args(calc_beyond_limit "line 3: a time of 9223372036854775807 ns is more than choreo takes \\(10\\^15 ns"
  sim ${bad}/calc_beyond_limit.goal)
cli_rejects_args(message_beyond_limit "rank 0, ops\\[0\\] \\(send\\): \"bytes\" = 4611686018427387904 is out of range: sizes and offsets are at most 2\\^50"
  sim ${bad}/message_beyond_limit.json)
cli_rejects_args(pattern_bytes_beyond_limit "--bytes = 9223372036854775807 is out of range: choreo takes 0 to 2\\^50"
  pattern alltoall --ranks 4 --bytes 9223372036854775807 -o ${out}/bad.json)
# 92 x 91 messages of 2^50 bytes: each within the limit, their sum beyond 64 bits.
cli_rejects_args(pattern_sum_beyond_64_bits "the pattern's bytes in all: .* does not fit 64-bit integers"
  pattern alltoall --ranks 92 --bytes 1125899906842624 -o ${out}/bad.json)
cli_rejects_args(redist_elements_beyond_limit "the array 2626128000x2626128000: 6.9e\\+18 elements, more than choreo takes \\(2\\^50"
  redist plan --shape 2626128000x2626128000 --from cyclic,cyclic@2x2 --to block,block@2x2)
cli_rejects_args(redist_element_bytes_beyond_limit "--element-bytes must be 1 to 1024"
  redist plan --shape 8x8 --from cyclic,cyclic@2x2 --to block,block@2x2 --element-bytes 1099511627776)

# validate agrees with the engines: a send that may overtake an earlier one to the same
# (destination, tag) is rejected, by validate and by sim (which validates first).
cli_rejects(send_overtakes ${bad}/send_overtakes.json
  "rank 0, op 2 \\(send 8 B to 1 tag 0\\): may start before op 1 \\(send 16 B to 1 tag 0\\).*Make op 2 require or irequire op 1, or give the two different tags")
cli_rejects_args(sim_send_overtakes "rank 0, op 2 \\(send 8 B to 1 tag 0\\): may start before op 1"
  sim ${bad}/send_overtakes.json)

# Crashes before: the simulator without validation on a bad peer or a missing dependency.
cli_rejects_args(sim_unvalidated_bad_peer "rank 0, op 0 \\(send\\): peer 5 is out of range for a 2-rank schedule"
  sim --no-validate ${bad}/sim_bad_peer.json)
cli_rejects_args(sim_unvalidated_unknown_dependency "rank 0, op 0: depends on op 7, which rank 0 does not have"
  sim --no-validate ${bad}/sim_unknown_dependency.json)

# A hang before: a factor near 1 asked for 10^8 sizes.
cli_rejects_args(select_factor_near_one "a factor of 1.0000001 gives 1.59e\\+08 sizes from 8 to 67108864 B; choreo predicts at most 1000: use a factor of at least 1.016"
  select allgather --ranks 8 ${hockney} --factor 1.0000001)

# A file choreo wrote and then rejected: the slot length is checked when scheduling.
cli_rejects_shell(schedule_delta_beyond_limit "the delay per slot \\(ns\\) = 9223372036854775000 is out of range: choreo takes 0 to 10\\^15 ns"
  "'${choreo}' pattern alltoall --ranks 4 -o '${out}/a4_delta.json' >/dev/null && '${choreo}' schedule --algo ring --paced --delta 9223372036854775000 '${out}/a4_delta.json' -o '${out}/bad.json'")

# Misleading errors before.
cli_rejects_args(select_bad_placement "unknown placement 'bogus'; use linear, round-robin, random:SEED or file:PATH"
  select allgather --ranks 8 ${hockney} --topology switch:8 --placement bogus)
cli_shell(select_export_takes_what_the_library_runs
  "bcast on 8 ranks.*binomial +scatter_allgather +winner.*wrote .*bcast.rules \\(ompi-rules\\).*wrote .*bcast.csel.json \\(mpich-json\\)"
  "'${choreo}' select bcast --ranks 8 --alpha 2us --bandwidth 10GBps --export ompi-rules -o '${out}/bcast.rules' && '${choreo}' select bcast --ranks 8 --alpha 2us --bandwidth 10GBps --export mpich-json -o '${out}/bcast.csel.json'")
cli_rejects_args(count_zero "--ranks: must be above 0, not 0; see choreo --help"
  redist plan --shape 8x8 --from cyclic,cyclic@2x2 --to block,block@2x2 --ranks 0)
cli_rejects_shell(directory_as_input "cannot read .*dir.json: it is a directory; give a file"
  "mkdir -p '${out}/dir.json' && '${choreo}' validate '${out}/dir.json'")
cli_rejects_args(select_plot_unwritable "cannot write /proc/x.png: check that its folder exists and is writable"
  select allgather --ranks 8 ${hockney} --plot /proc/x.png)
cli_rejects_args(sim_noise_trace_device "noise trace /dev/zero: cannot read /dev/zero: it is a device or socket, not a file"
  sim ${data}/dissemination4.goal --noise trace:/dev/zero)
cli_rejects_args(generate_ranks_beyond_limit "ranks=2147483647 in generator spec 'bcast:binomial:ranks=2147483647:bytes=8' is out of range: choreo takes at most 2\\^24"
  sim --generate bcast:binomial:ranks=2147483647:bytes=8)
# Found by fuzzing: an empty GOAL file converts to no JSON (which would not read back).
cli_rejects_args(convert_no_ranks "cannot write the schedule as JSON: it has 0 ranks"
  convert ${bad}/no_ranks.goal -o ${out}/no_ranks.json)

# The audit: every entry point the tool's --help lists, given an unknown option, a missing
# file, a folder, an empty file, binary garbage and a malformed value of each option that
# names a file or a spec (tests/cli/every_entry_point.sh; a subcommand without cases fails).
add_test(NAME cli.every_entry_point
  COMMAND bash ${PROJECT_SOURCE_DIR}/tests/cli/every_entry_point.sh ${choreo})
set_tests_properties(cli.every_entry_point PROPERTIES LABELS cli TIMEOUT 300)

# Issue 21's small cases. A zero needs no unit (--hop-latency 0, as its help's "default 0").
cli_shell(select_hop_latency_zero "predicted time per call"
  "'${choreo}' select bcast --ranks 8 --alpha 1us --bandwidth 1GBps --hop-latency 0")
# Sizes take suffixes wherever a byte count is asked for, as `select --sizes` does.
cli_shell(pattern_bytes_suffix "alltoall on 4 ranks, 12 messages, 48.0 KiB"
  "'${choreo}' pattern alltoall --ranks 4 --bytes 4K -o '${out}/suffix.json'")
# jitter sweep's defaults skip no point and write whole bytes (N was 2.1e-13 at Tcomm = alpha).
cli_shell(jitter_defaults_whole_bytes "\njitter defaults: OK"
  "set -e; '${choreo}' jitter sweep --log2-ranks 1:2 -o '${out}/jitter_defaults.csv' 2>'${out}/jitter_defaults.err'; \
   ! grep -q skipping '${out}/jitter_defaults.err'; \
   awk -F, 'NR > 1 && $5 != int($5) { bad = 1 } NR > 1 { n++ } END { exit bad || n != 8 }' '${out}/jitter_defaults.csv'; \
   echo 'jitter defaults: OK'")

# Binary schedules (.cbs; tests/data/bad/make_bad_cbs.py made these): each a one-line error
# from `choreo sim` (which maps the file) and from `choreo validate` and `choreo convert`.
cli_rejects_args(cbs_truncated "cbs_truncated.cbs: cut short at byte [0-9]+ \\(array peer needs bytes [0-9]+ to [0-9]+; the file needs [0-9]+\\); write it again"
  sim ${bad}/cbs_truncated.cbs)
cli_rejects_args(cbs_future_version "cbs_future_version.cbs: binary schedule format version 2.0 \\(written by choreo [0-9.]+\\) is not one this choreo reads \\(1.x\\)"
  sim ${bad}/cbs_future_version.cbs)
cli_rejects_args(cbs_peer_out_of_range "cbs_peer_out_of_range.cbs: corrupt: rank 0, op 0 \\(send\\): peer 4 is out of range for a 4-rank schedule"
  sim ${bad}/cbs_peer_out_of_range.cbs)
cli_rejects(cbs_dependency_across_ranks ${bad}/cbs_dependency_across_ranks.cbs
  "cbs_dependency_across_ranks.cbs: corrupt: rank 0, op [0-9]+ \\([a-z]+\\): op [0-9]+ depends on it, but is not of rank 0")
cli_rejects_args(convert_cbs_truncated "cbs_truncated.cbs: cut short"
  convert ${bad}/cbs_truncated.cbs -o ${out}/truncated.goal)
cli_rejects_shell(sim_cbs_not_cbs "text.cbs: not a choreo binary schedule \\(it does not start with CHOREOBS\\)"
  "cp '${data}/dissemination4.goal' '${out}/text.cbs' && '${choreo}' sim '${out}/text.cbs'")
