# Paper 000's cluster under SimGrid SMPI, shared by bench/compare_irregular.sh and
# bench/intercept_smpi.sh (source it; it defines functions and constants, runs nothing):
# 64 nodes on one 1 GbE switch with 50 us links, 63 KiB messages, the patterns of its Table 3
# and Fig. 6, and the SMPI settings every choreo SMPI run uses (docs/BENCHMARKS.md).

paper_bytes=64512         # 63 KiB, paper 000's largest eager message
port_bandwidth=125000000  # 1 Gbit/s in bytes/s

# simulate-computation:no  the programs' own CPU time (filling and checking buffers) is not
#                          part of what is measured, so it must not advance the simulated clock
# smpi/test:0              SMPI charges 100 us of simulated time per MPI_Test/Waitsome otherwise
smpi_common=(--cfg=smpi/simulate-computation:no --cfg=smpi/test:0
  --log=xbt_cfg.thres:warning --log=smpi_config.thres:warning --log=smpi_coll.thres:warning)

# switch_platforms CHOREO DIR: DIR/switch64.xml and DIR/switch64-ns3.xml, each with its .hosts.
switch_platforms() {
  "$1" platform switch --nodes 64 --bw 1Gbps --lat 50us -o "$2/switch64.xml" > /dev/null
  "$1" platform switch --nodes 64 --bw 1Gbps --lat 50us --ns3 -o "$2/switch64-ns3.xml" > /dev/null
}

# ns-3 with switch ports that drop (issue 23). As SimGrid 3.32 leaves ns-3.37, every port has
# a 10240-packet FqCoDel queue disc (CoDel drops only after 100 ms above 5 ms of delay) ahead
# of a 100-packet device queue, so a 63-to-1 incast of 63 KiB (about 4100 packets) never
# loses a packet. SimGrid has no option for it, but ns-3 reads its attribute defaults from
# this variable: 100 packets in the queue disc (with the device queue, about 200 packets of
# 1040 B, 203 KiB, per port) and Linux's 200 ms minimum RTO instead of ns-3's 1 s. SimGrid's
# own TCP settings stay: 1000-byte segments, SACK, an ACK per segment, NewReno.
# SimGrid opens a TCP connection per message, where an MPI keeps its connections: a dropped
# SYN waited ns-3's 3 s ConnTimeout (triangle's ring took 3.0 s). A SYN lost here stands for
# the first segment of a message lost on a warm connection, so it waits what that would: the
# 200 ms minimum RTO. docs/BENCHMARKS.md ("A switch that drops") says what else was tried.
ns3_loss="ns3::FqCoDelQueueDisc::MaxSize=100p;ns3::TcpSocketBase::MinRto=200ms;ns3::TcpSocket::ConnTimeout=200ms"

# smpi_launcher SETTING DIR: sets the array `smpi_launcher` (smpirun and its options, without
# -np) for a setting on DIR's platforms (switch_platforms):
#   flow        SMPI's flow model with its per-size bandwidth and latency factors off (1 GbE
#               is 1 GbE); SimGrid's TCP ACK cross-traffic on (5% of a flow's rate backwards)
#   flow-noack  the same without the ACK cross-traffic (ideal full-duplex links)
#   ns3         SimGrid's ns-3 packet-level TCP model (NewReno) on the router form of the switch
#   ns3-loss    the same with ns3_loss's switch ports and TCP: ports that drop (issue 23)
smpi_launcher() {
  case $1 in
    flow|flow-noack)
      smpi_launcher=(smpirun -platform "$2/switch64.xml" -hostfile "$2/switch64.hosts"
        "${smpi_common[@]}" --cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1)
      if [ "$1" = flow-noack ]; then smpi_launcher+=(--cfg=network/crosstraffic:0); fi
      ;;
    ns3|ns3-loss)
      smpi_launcher=(smpirun -platform "$2/switch64-ns3.xml" -hostfile "$2/switch64-ns3.hosts"
        "${smpi_common[@]}" --cfg=network/model:ns-3 --cfg=ns3/TcpModel:NewReno)
      if [ "$1" = ns3-loss ]; then smpi_launcher=(env "NS_ATTRIBUTE_DEFAULT=$ns3_loss" "${smpi_launcher[@]}"); fi
      ;;
    *) echo "smpi_launcher: unknown setting '$1' (flow, flow-noack, ns3 or ns3-loss)" >&2; return 1 ;;
  esac
}

# paper_pattern CHOREO NAME RANKS DIR: writes DIR/NAME-RANKS.json and prints its name. NAME is
# scatter, gather, alltoall, triangle, sf-1..sf-5 (paper 000's Table 4 scale-free graphs,
# m0 = m in 4 7 12 17 28, seed 1) or sf (m0 = m = 2, for 4 ranks); messages of paper_bytes.
paper_pattern() {
  local choreo=$1 name=$2 ranks=$3 file=$4/$2-$3.json args
  case $name in
    sf-1) args="scale-free --m0 4" ;; sf-2) args="scale-free --m0 7" ;;
    sf-3) args="scale-free --m0 12" ;; sf-4) args="scale-free --m0 17" ;;
    sf-5) args="scale-free --m0 28" ;; sf) args="scale-free --m0 2" ;;
    scatter|gather|alltoall|triangle) args=$name ;;
    *) echo "paper_pattern: unknown pattern '$name' (scatter gather alltoall triangle sf-1..sf-5 sf)" >&2
       return 1 ;;
  esac
  # shellcheck disable=SC2086
  "$choreo" pattern $args --ranks "$ranks" --bytes "$paper_bytes" --seed 1 -o "$file" > /dev/null
  echo "$file"
}

# port_lower_bound FILE: the largest bytes through one port / 1 Gbit/s, in seconds; no
# schedule can be faster.
port_lower_bound() {
  jq -r --argjson bw "$port_bandwidth" '([.messages | group_by(.src)[] | map(.bytes) | add] +
    [.messages | group_by(.dst)[] | map(.bytes) | add] | max) / $bw' "$1"
}
