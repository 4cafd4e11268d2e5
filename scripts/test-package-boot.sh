#!/usr/bin/env bash
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
# The boot test: the .deb that scripts/test-packages.sh built, installed in a
# booted Debian 12 (systemd as PID 1) and taken through what a user does:
#   1. apt-get install ./the.deb: the postinst enabled and started the unit, the
#      collector runs as otelcol-xlaoom and its health check answers (node agent
#      config);
#   2. the README's single-machine path: the one OTELCOL_OPTIONS line appended to
#      the environment file, a restart, a real job log (oom/testdata/jobs) under
#      /var/log/xla/<job>/: its incident, xla_oom_incidents_total, on
#      127.0.0.1:9464 and its tagged records in /var/lib/otelcol-xlaoom/records.json;
#   2b. the kernel's OOM lines from the journal, as the packaged environment
#      file sets it (XLAOOM_KERNEL_SOURCE=journald/kernel): the user is in
#      systemd-journal, the collector's journalctl --dmesg runs as that user,
#      and a real kernel kill (hostoom/testdata) in a journal file of this boot
#      (written by systemd-journal-remote, put into the container's journal
#      directory) is one host kill, xla_oom_host_kills_total 1; skipped,
#      saying so, without systemd-journal-remote;
#   3. a stop and a start: the job is not read or counted again (checkpoints),
#      a second job's log is;
#   4. an upgrade to a newer build (goreleaser, version VERSION-dev.1, whose
#      environment file changed) with apt-get's non-interactive dpkg options
#      --force-confdef --force-confold: the edited environment file is kept (the
#      new one lands beside it as .dpkg-dist), the service restarted on the new
#      binary, and no job counted again (a third job is);
#   5. remove: the service stopped, the program and unit gone, configuration,
#      data and user kept; purge: configuration and data gone, the user kept.
# The root file system is built by mmdebstrap from Debian's packages (bookworm,
# systemd and curl; cached in out/boot, delete it to refresh) and booted by
# systemd-nspawn in a network namespace of its own (--private-network): the
# collector listens on its default ports (13133, 8888, 9464), which nothing on
# this machine can take from it or lose to it, and curl runs inside, as on the
# user's machine. There is no system bus here: --register=no --keep-unit, and
# commands run inside through nsenter. The container is stopped on every exit.
# Every wait is a bounded poll: the incident within 90 s.
# Needs root (or passwordless sudo, which then runs the part after the upgrade
# build), mmdebstrap, Debian's archive keyring and systemd-nspawn (Debian/Ubuntu:
# apt-get install -y mmdebstrap debian-archive-keyring systemd-container), goreleaser (GORELEASER or out/tools) and the
# network once, for the root file system. make package-test and make test run
# it after the package test when they are there.
# --missing prints what is missing to run it (nothing when it can run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
goreleaser=${GORELEASER:-$root/out/tools/goreleaser/goreleaser}

missing=()
# The boot needs root: this script's user, or passwordless sudo (a CI runner),
# which runs what follows the upgrade build (--boot).
sudo=()
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
  else
    missing+=("root (or passwordless sudo)")
  fi
fi
for tool in mmdebstrap systemd-nspawn nsenter flock; do
  command -v "$tool" >/dev/null || missing+=("$tool")
done
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || missing+=("debian-archive-keyring")
[ -x "$goreleaser" ] || missing+=("goreleaser")
if [ "${1:-}" = --missing ]; then
  echo "${missing[*]}"
  exit 0
fi
[ ${#missing[@]} -eq 0 ] || { echo "FAIL: not installed: ${missing[*]}" >&2; exit 1; }

arch=${2:-$(go env GOARCH)}
version="$(tr -d '[:space:]' <VERSION)-dev"
next="$version.1"
deb=$root/out/packages/dist/otelcol-xlaoom_${version//-/\~}_$arch.deb
work=$root/out/boot
mkdir -p "$work"
exec 9>"$work/lock"
flock -n 9 || { echo "FAIL: another boot test runs in this checkout" >&2; exit 1; }
[ -f "$deb" ] || { echo "FAIL: no $deb: run scripts/test-packages.sh first" >&2; exit 1; }

started=$SECONDS
phase() { echo "--- [$((SECONDS - started))s] $*"; }
leader= nspawn= run=

fail() {
  echo "FAIL: $*" >&2
  if [ -n "$leader" ]; then
    echo "--- the service's journal (last 40 lines)" >&2
    in_ct journalctl -u otelcol-xlaoom --no-pager -n 40 >&2 || true
  fi
  exit 1
}

# in_ct CMD...: runs CMD in the container, as root, with a clean environment.
in_ct() {
  nsenter --target "$leader" --mount --uts --ipc --net --pid --root --wd -- \
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

# wait_for WHAT SECONDS CMD...: polls CMD until it succeeds, for at most SECONDS.
wait_for() {
  local what=$1 limit=$2 from=$SECONDS
  shift 2
  until "$@" >/dev/null 2>&1; do
    [ $((SECONDS - from)) -lt "$limit" ] || fail "$what: not within ${limit}s"
    sleep 0.5
  done
  echo "    $what: $((SECONDS - from))s"
}

# child_of PID: the first process whose parent is PID.
child_of() {
  local s line fields
  for s in /proc/[0-9]*/stat; do
    read -r line <"$s" 2>/dev/null || continue
    read -r -a fields <<<"${line##*) }"
    if [ "${fields[1]}" = "$1" ]; then
      s=${s#/proc/}
      echo "${s%/stat}"
      return 0
    fi
  done
  return 1
}

stop_container() {
  [ -n "$nspawn" ] || return 0
  # SIGTERM: nspawn asks the container's systemd to power off.
  kill -TERM "$nspawn" 2>/dev/null || true
  local from=$SECONDS
  while kill -0 "$nspawn" 2>/dev/null && [ $((SECONDS - from)) -lt 30 ]; do sleep 0.2; done
  if kill -0 "$nspawn" 2>/dev/null; then
    echo "the container did not power off within 30s: killed" >&2
    [ -z "$leader" ] || kill -KILL "$leader" 2>/dev/null || true
    kill -KILL "$nspawn" 2>/dev/null || true
  fi
  wait "$nspawn" 2>/dev/null || true
  nspawn=
}
cleanup() {
  local rc=$?
  stop_container
  [ -z "$run" ] || rm -rf "$run"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The newer build: the same tree as version $next, with a changed default
# environment file (a line added), for this platform and .deb only.
up=$work/next
nextdeb=$up/dist/otelcol-xlaoom_${next//-/\~}_$arch.deb
if [ "${1:-}" != --boot ]; then
  phase "building the upgrade package $next (goreleaser)"
  rm -rf "$up"
  mkdir -p "$up"
  cp distribution/packaging/otelcol-xlaoom.conf "$up/otelcol-xlaoom.conf"
  echo "# (changed in $next)" >>"$up/otelcol-xlaoom.conf"
  sed -E -e "s/^    goos: .*/    goos: [linux]/" -e "s/^    goarch: .*/    goarch: [$arch]/" \
    -e "s|^  version_template: .*|  version_template: \"$next\"|" \
    -e "s|src: distribution/packaging/otelcol-xlaoom.conf|src: $up/otelcol-xlaoom.conf|" \
    -e "s/formats: \[deb, rpm\]/formats: [deb]/" .goreleaser.yaml >"$up/goreleaser.yaml"
  echo "dist: $up/dist" >>"$up/goreleaser.yaml"
  for want in "goarch: \[$arch\]" "version_template: \"$next\"" "src: $up/otelcol-xlaoom.conf" "formats: \[deb\]"; do
    grep -q "$want" "$up/goreleaser.yaml" || fail "could not derive the upgrade build's config ($want) from .goreleaser.yaml"
  done
  "$goreleaser" release --snapshot --clean --skip=archive --config "$up/goreleaser.yaml" >"$up/goreleaser.log" 2>&1 ||
    { tail -20 "$up/goreleaser.log" >&2; fail "the upgrade build failed"; }
  [ -f "$nextdeb" ] || fail "the upgrade build made no $nextdeb"
  if [ ${#sudo[@]} -gt 0 ]; then
    phase "the boot, as root: ${sudo[*]} $0 --boot $arch"
    exec 9>&-
    exec "${sudo[@]}" env PATH="$PATH" GORELEASER="$goreleaser" "$0" --boot "$arch"
  fi
fi

# The root file system, built once: Debian 12 with systemd as init and curl,
# checked against Debian's archive keyring whatever distribution this is.
rootfs=$work/debian12-$arch.tar
mm=(mmdebstrap --variant=minbase --include=systemd-sysv,curl --architectures="$arch" --keyring="$keyring" bookworm)
if [ ! -f "$rootfs" ] || [ "$(cat "$rootfs.args" 2>/dev/null)" != "${mm[*]}" ]; then
  phase "building the Debian 12 root file system (mmdebstrap, about 30 s): $rootfs"
  rm -f "$rootfs" "$rootfs.args"
  "${mm[@]}" "$work/debian12-new.tar" http://deb.debian.org/debian </dev/null >"$work/mmdebstrap.log" 2>&1 ||
    { tail -20 "$work/mmdebstrap.log" >&2; fail "mmdebstrap failed (log: $work/mmdebstrap.log)"; }
  mv "$work/debian12-new.tar" "$rootfs"
  echo "${mm[*]}" >"$rootfs.args"
fi

phase "booting Debian 12 (systemd-nspawn)"
run=$(mktemp -d "$work/run.XXXXXX")
ct=$run/root
mkdir "$ct"
tar -C "$ct" -xf "$rootfs"
cp "$deb" "$ct/root/otelcol-xlaoom.deb"
cp "$nextdeb" "$ct/root/otelcol-xlaoom-next.deb"
systemd-nspawn --quiet --directory="$ct" --machine="xlaoom-boot-$$" --boot --register=no --keep-unit \
  --private-network </dev/null >"$run/console.log" 2>&1 &
nspawn=$!
from=$SECONDS
until leader=$(child_of "$nspawn") && [ "$(cat "/proc/$leader/comm" 2>/dev/null)" = systemd ]; do
  kill -0 "$nspawn" 2>/dev/null || { cat "$run/console.log" >&2; leader=; fail "systemd-nspawn exited"; }
  [ $((SECONDS - from)) -lt 30 ] || { leader=; fail "no systemd in the container within 30s"; }
  sleep 0.2
done
booted() { case $(in_ct systemctl is-system-running) in running | degraded) return 0 ;; esac; return 1; }
wait_for "booted" 60 booted

active() { [ "$(in_ct systemctl is-active otelcol-xlaoom)" = active ]; }
mainpid() { in_ct systemctl show -p MainPID --value otelcol-xlaoom; }
# serving CONFIG: the service's main process is the installed collector (it
# reads "(deleted)" when dpkg replaced the file under it), as otelcol-xlaoom,
# on /etc/otelcol-xlaoom/CONFIG. Polled: until it execs, the process that
# systemd forked is systemd.
serving() {
  local pid
  pid=$(mainpid) && [ "$pid" != 0 ] || return 1
  [ "$(in_ct readlink "/proc/$pid/exe")" = /usr/bin/otelcol-xlaoom ] || return 1
  in_ct grep -q "^Uid:[[:space:]]*$uid[[:space:]]" "/proc/$pid/status" || return 1
  in_ct cat "/proc/$pid/cmdline" | tr '\0' ' ' | grep -q -- "--config=/etc/otelcol-xlaoom/$1 "
}
metrics() { in_ct curl -fsS --max-time 5 http://127.0.0.1:9464/metrics; }
# incidents JOB: the sum of xla_oom_incidents_total over JOB's series (0: none).
incidents() {
  metrics | awk -v job="service_name=\"$1\"" '
    index($0, "xla_oom_incidents_total{") == 1 && index($0, job) { v = $0; sub(/.*} /, "", v); split(v, f, " "); n += f[1] }
    END { print n + 0 }'
}
counted() { [ "$(incidents "$1")" = "$2" ]; }
show_incidents() { metrics | grep '^xla_oom_incidents_total' | sed 's/^/    /'; }
# drop JOB LOG: the job's log appears under /var/log/xla/JOB/, as a job writes it.
drop() {
  mkdir -p "$ct/var/log/xla/$1"
  cp "oom/testdata/jobs/$2" "$ct/var/log/xla/$1/train.log.tmp"
  mv "$ct/var/log/xla/$1/train.log.tmp" "$ct/var/log/xla/$1/train.log"
}
records_of() { in_ct grep -c "$1" /var/lib/otelcol-xlaoom/records.json || true; }

phase "1. apt-get install ./otelcol-xlaoom.deb (${version//-/\~})"
in_ct apt-get install -y -q /root/otelcol-xlaoom.deb >"$run/install.log" 2>&1 || { cat "$run/install.log" >&2; fail "install"; }
[ "$(in_ct systemctl is-enabled otelcol-xlaoom)" = enabled ] || fail "the postinst did not enable the unit"
uid=$(in_ct id -u otelcol-xlaoom) || fail "no user otelcol-xlaoom"
wait_for "the service is active" 30 active
wait_for "the collector runs as otelcol-xlaoom on config.yaml" 30 serving config.yaml
wait_for "the health check answers on 127.0.0.1:13133" 60 in_ct curl -fsS --max-time 5 http://127.0.0.1:13133/

phase "2. the single-machine config: one line, restart, a job log, its incident"
in_ct sh -c "echo 'OTELCOL_OPTIONS=\"--config=/etc/otelcol-xlaoom/all-in-one.yaml\"' >>/etc/otelcol-xlaoom/otelcol-xlaoom.conf"
in_ct systemctl restart otelcol-xlaoom
wait_for "the collector runs on all-in-one.yaml" 30 serving all-in-one.yaml
wait_for "the metrics answer on 127.0.0.1:9464" 60 metrics
# Both jobs failed once (oom/testdata/jobs/jobs-manifest.json): one incident each.
job1=platform-oom job2=cuda-async-oom job3=cupy-jax-oom
drop "$job1" platform_near_full_oom.log
wait_for "xla_oom_incidents_total{service_name=\"$job1\"} 1" 90 counted "$job1" 1
show_incidents
in_ct grep -q '"xla.oom.incident.id"' /var/lib/otelcol-xlaoom/records.json || fail "records.json holds no tagged record"

phase "2b. a kernel OOM kill from the journal (journald/kernel as otelcol-xlaoom in systemd-journal)"
case " $(in_ct id -nG otelcol-xlaoom) " in
*" systemd-journal "*) ;;
*) fail "the preinst did not add otelcol-xlaoom to systemd-journal: $(in_ct id otelcol-xlaoom)" ;;
esac
# journalctl_of_service: the collector's journalctl, as the service's user, with --dmesg.
journalctl_of_service() {
  in_ct sh -c 'for d in /proc/[0-9]*; do
    [ "$(cat "$d/comm" 2>/dev/null)" = journalctl ] || continue
    grep -q "^Uid:[[:space:]]*$1[[:space:]]" "$d/status" && tr "\0" " " <"$d/cmdline" | grep -q -- --dmesg && exit 0
  done; exit 1' sh "$uid"
}
wait_for "the collector's journalctl --dmesg runs as otelcol-xlaoom" 30 journalctl_of_service
remote=
for r in /usr/lib/systemd/systemd-journal-remote /lib/systemd/systemd-journal-remote; do [ -x "$r" ] && remote=$r && break; done
if [ -z "$remote" ]; then
  echo "    SKIPPED the kill from the journal: systemd-journal-remote is not installed (apt-get install -y systemd-journal-remote)"
else
  mid=$(in_ct cat /etc/machine-id)
  jdir=/var/log/journal/$mid
  in_ct test -d "$jdir" || jdir=/run/log/journal/$mid
  in_ct test -d "$jdir" || fail "no journal directory in the container (/var/log/journal or /run/log/journal)"
  # The kill's lines as journald stores kernel lines: this boot, now, no dmesg timestamp.
  boot=$(in_ct cat /proc/sys/kernel/random/boot_id | tr -d -)
  awk -v boot="$boot" -v mid="$mid" -v rt="$(($(date +%s%N) / 1000))" -v mono="$(awk '{printf "%.0f", $1 * 1000000}' /proc/uptime)" '
    { msg = $0; sub(/^\[[ 0-9.]+\] /, "", msg)
      printf "__REALTIME_TIMESTAMP=%.0f\n__MONOTONIC_TIMESTAMP=%.0f\n_BOOT_ID=%s\n_MACHINE_ID=%s\n_TRANSPORT=kernel\nSYSLOG_IDENTIFIER=kernel\nSYSLOG_FACILITY=0\nPRIORITY=4\nMESSAGE=%s\n\n", rt + NR, mono + NR, boot, mid, msg }
  ' hostoom/testdata/memcg-v1-linux-6.18.dmesg.txt >"$run/kill.export"
  "$remote" --output="$run/kill.journal" - <"$run/kill.export" >"$run/journal-remote.log" 2>&1 || { cat "$run/journal-remote.log" >&2; fail "systemd-journal-remote"; }
  # Renamed into place whole: the collector's journalctl --follow picks up the new file.
  cp "$run/kill.journal" "$ct/root/kill.journal"
  in_ct cp /root/kill.journal "$jdir/.kill.journal.tmp"
  in_ct chown root:systemd-journal "$jdir/.kill.journal.tmp"
  in_ct chmod 0640 "$jdir/.kill.journal.tmp"
  in_ct mv "$jdir/.kill.journal.tmp" "$jdir/kernel-oom-test.journal"
  host_kills() { metrics | awk 'index($0, "xla_oom_host_kills_total{") == 1 { v = $0; sub(/.*} /, "", v); split(v, f, " "); n += f[1] } END { print n + 0 }'; }
  killed() { [ "$(host_kills)" = 1 ]; }
  wait_for "xla_oom_host_kills_total 1 (pid 29330, from the journal)" 60 killed
  in_ct grep -q '"xla.oom.host_kill"' /var/lib/otelcol-xlaoom/records.json || fail "records.json holds no host kill record"
  in_ct grep -q 'Killed process 29330' /var/lib/otelcol-xlaoom/records.json || fail "records.json lacks the kill's line"
  ! in_ct grep -q 'Call Trace' /var/lib/otelcol-xlaoom/records.json || fail "a kernel line that is no OOM line left the node"
fi

phase "3. stop, start: no job counted twice"
in_ct systemctl stop otelcol-xlaoom
before=$(records_of "$job1")
[ "$before" -gt 0 ] || fail "records.json has no record of $job1"
in_ct systemctl start otelcol-xlaoom
wait_for "the metrics answer again" 60 metrics
drop "$job2" cuda_async_near_full_oom.log
wait_for "xla_oom_incidents_total{service_name=\"$job2\"} 1" 90 counted "$job2" 1
[ "$(incidents "$job1")" = 0 ] || fail "after a restart $job1 was counted again: $(metrics | grep "$job1")"
[ "$(records_of "$job1")" = "$before" ] || fail "after a restart $job1's records were written again"
if [ -n "$remote" ]; then # the journal cursor: the kill of 2b is not read again
  [ "$(host_kills)" = 0 ] || fail "after a restart the kill from the journal was counted again: $(metrics | grep xla_oom_host_kills)"
fi

phase "4. upgrade to $next: the edited config kept, the service restarted"
pid=$(mainpid)
in_ct apt-get install -y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
  /root/otelcol-xlaoom-next.deb >"$run/upgrade.log" 2>&1 || { cat "$run/upgrade.log" >&2; fail "upgrade"; }
[ "$(in_ct dpkg-query -W -f '${Version}' otelcol-xlaoom)" = "${next//-/\~}" ] || fail "not upgraded"
in_ct grep -qx 'OTELCOL_OPTIONS="--config=/etc/otelcol-xlaoom/all-in-one.yaml"' /etc/otelcol-xlaoom/otelcol-xlaoom.conf ||
  fail "the upgrade lost the edited environment file"
in_ct grep -qx "# (changed in $next)" /etc/otelcol-xlaoom/otelcol-xlaoom.conf.dpkg-dist || fail "no new environment file beside the kept one"
cmp "$ct/etc/otelcol-xlaoom/all-in-one.yaml" distribution/packaging/all-in-one.yaml || fail "all-in-one.yaml changed"
wait_for "the new collector runs on all-in-one.yaml" 30 serving all-in-one.yaml
newpid=$(mainpid)
[ "$newpid" != "$pid" ] || fail "the upgrade did not restart the service (pid $pid)"
in_ct otelcol-xlaoom --version | grep -qx "otelcol-xlaoom version $next" || fail "the binary is not $next: $(in_ct otelcol-xlaoom --version)"
wait_for "the metrics answer again" 60 metrics
drop "$job3" cupy_then_jax_oom.log
wait_for "xla_oom_incidents_total{service_name=\"$job3\"} 1" 90 counted "$job3" 1
[ "$(incidents "$job1")$(incidents "$job2")" = 00 ] || fail "after the upgrade a job was counted again"
if [ -n "$remote" ]; then
  [ "$(host_kills)" = 0 ] || fail "after the upgrade the kill from the journal was counted again: $(metrics | grep xla_oom_host_kills)"
fi
show_incidents

phase "5. remove, then purge"
in_ct apt-get remove -y -q otelcol-xlaoom >"$run/remove.log" 2>&1 || { cat "$run/remove.log" >&2; fail "remove"; }
[ "$(in_ct systemctl is-active otelcol-xlaoom)" != active ] || fail "the service runs after remove"
! in_ct sh -c 'cat /proc/[0-9]*/comm' 2>/dev/null | grep -qx otelcol-xlaoom || fail "a collector runs after remove"
for f in /usr/bin/otelcol-xlaoom /lib/systemd/system/otelcol-xlaoom.service; do
  ! in_ct test -e "$f" || fail "remove left $f"
done
for f in /etc/otelcol-xlaoom/config.yaml /etc/otelcol-xlaoom/all-in-one.yaml /var/lib/otelcol-xlaoom/records.json /var/lib/otelcol-xlaoom/storage; do
  in_ct test -e "$f" || fail "remove deleted $f (configuration and data stay until purge)"
done
in_ct grep -q all-in-one.yaml /etc/otelcol-xlaoom/otelcol-xlaoom.conf || fail "remove lost the edited environment file"
in_ct getent passwd otelcol-xlaoom >/dev/null || fail "remove deleted the user"
in_ct apt-get purge -y -q otelcol-xlaoom >"$run/purge.log" 2>&1 || { cat "$run/purge.log" >&2; fail "purge"; }
for f in /etc/otelcol-xlaoom /var/lib/otelcol-xlaoom /etc/systemd/system/multi-user.target.wants/otelcol-xlaoom.service /etc/systemd/system/otelcol-xlaoom.service; do
  ! in_ct test -e "$f" -o -L "$f" || fail "purge left $f"
done
in_ct getent passwd otelcol-xlaoom >/dev/null || fail "purge deleted the system user (Debian keeps it)"
[ "$(in_ct dpkg-query -W -f '${db:Status-Status}' otelcol-xlaoom 2>/dev/null || echo not-installed)" = not-installed ] || fail "the package is still known to dpkg"

phase "stopping the container"
stop_container
echo "boot test OK in $((SECONDS - started))s: ${version//-/\~} installed, started, switched to all-in-one.yaml, 3 incidents and a kernel kill from the journal each counted once across a restart and an upgrade to ${next//-/\~}, removed and purged"
