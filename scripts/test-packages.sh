#!/usr/bin/env bash
# Copyright The xla_oom Authors
# SPDX-License-Identifier: Apache-2.0
# The package test: builds a goreleaser snapshot (.goreleaser.yaml) for this
# machine's platform only (the full distribution takes minutes per platform to
# compile on 2 cores) into out/packages/dist, then checks what a user installs:
#   - checksums.txt matches every archive and package;
#   - the .deb and the .rpm hold exactly the expected files (binary, systemd
#     unit, the node agent and the single-machine configs, environment file,
#     storage directory), mark the three files under /etc/otelcol-xlaoom as
#     configuration (kept on upgrade), and carry the scripts that create the
#     service's user, start and stop the service and, on purge, delete its data;
#   - the unit runs /usr/bin/otelcol-xlaoom as that user with the packaged config;
#   - the packaged binary reports the snapshot's version and validates both
#     packaged configs; the archives hold the same binaries.
# Needs goreleaser (scripts/install-goreleaser.sh), dpkg-deb, rpm and rpm2archive
# (Debian: apt-get install -y rpm). make test runs it when they are there, then
# the boot test (scripts/test-package-boot.sh: the .deb in a booted Debian).
# Without rpm or rpm2archive (a fresh Debian or Ubuntu machine) the .rpm checks
# are skipped, saying so; with CI=true they are required.
# --checks-only checks the snapshot already in out/packages/dist again.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
goreleaser=${GORELEASER:-$root/out/tools/goreleaser/goreleaser}
work=$root/out/packages
dist=$work/dist
arch=$(go env GOARCH)
version="$(tr -d '[:space:]' <VERSION)-dev"
# Debian and RPM order "0.1.0~dev" before "0.1.0", as semver orders 0.1.0-dev.
pkgversion=${version//-/\~}

fail() { echo "FAIL: $*" >&2; exit 1; }
# has FILE LINE: FILE holds LINE exactly.
has() { grep -qxF -- "$2" "$1" || fail "$1 lacks the line '$2'"; }

rpmtools=true
for tool in rpm rpm2archive; do
  if ! command -v "$tool" >/dev/null; then
    [ "${CI:-}" = true ] && fail "$tool is not installed (apt-get install -y rpm)"
    rpmtools=false
  fi
done
$rpmtools || echo "--- rpm or rpm2archive is not installed: the .rpm checks will be SKIPPED (install: apt-get install -y rpm)"

if [ "${1:-}" != --checks-only ]; then
  rm -rf "$work"
  mkdir -p "$work"
  # The release configuration, restricted to this platform.
  sed -E -e "s/^    goos: .*/    goos: [linux]/" -e "s/^    goarch: .*/    goarch: [$arch]/" .goreleaser.yaml >"$work/goreleaser.yaml"
  echo "dist: $dist" >>"$work/goreleaser.yaml"
  grep -q "goarch: \[$arch\]" "$work/goreleaser.yaml" || fail "could not restrict .goreleaser.yaml to linux/$arch"
  "$goreleaser" release --snapshot --clean --config "$work/goreleaser.yaml"
fi
rm -rf "$work"/deb-* "$work"/rpm-* "$work/archive" "$work/xlaoom"

cd "$dist"
deb=otelcol-xlaoom_${pkgversion}_$arch.deb
rpm=otelcol-xlaoom-$pkgversion-1.$([ "$arch" = amd64 ] && echo x86_64 || echo aarch64).rpm
for f in "$deb" "$rpm" otelcol-xlaoom_${version}_linux_$arch.tar.gz xlaoom_${version}_linux_$arch.tar.gz checksums.txt; do
  [ -f "$f" ] || fail "snapshot lacks $f: $(ls)"
done
echo "--- artifacts"
ls -l ./*.tar.gz ./*.deb ./*.rpm checksums.txt
sha256sum --check --strict checksums.txt
[ "$(wc -l <checksums.txt)" -eq 4 ] || fail "checksums.txt should list 2 archives and 2 packages: $(cat checksums.txt)"

# The files a package installs, directories that only hold them left out.
want="/etc/otelcol-xlaoom/all-in-one.yaml
/etc/otelcol-xlaoom/config.yaml
/etc/otelcol-xlaoom/otelcol-xlaoom.conf
/lib/systemd/system/otelcol-xlaoom.service
/usr/bin/otelcol-xlaoom
/var/lib/otelcol-xlaoom"
conffiles="/etc/otelcol-xlaoom/all-in-one.yaml
/etc/otelcol-xlaoom/config.yaml
/etc/otelcol-xlaoom/otelcol-xlaoom.conf"

# installed ROOT: checks an unpacked package under ROOT.
installed() {
  local r=$1
  cmp "$r/etc/otelcol-xlaoom/config.yaml" "$root/examples/agent.yaml" || fail "the packaged config is not examples/agent.yaml"
  cmp "$r/etc/otelcol-xlaoom/all-in-one.yaml" "$root/distribution/packaging/all-in-one.yaml" || fail "the packaged single-machine config differs"
  cmp "$r/etc/otelcol-xlaoom/otelcol-xlaoom.conf" "$root/distribution/packaging/otelcol-xlaoom.conf" || fail "the environment file differs"
  local unit=$r/lib/systemd/system/otelcol-xlaoom.service
  cmp "$unit" "$root/distribution/packaging/otelcol-xlaoom.service" || fail "the unit differs from distribution/packaging"
  has "$unit" "User=otelcol-xlaoom"
  has "$unit" "Group=otelcol-xlaoom"
  has "$unit" "EnvironmentFile=/etc/otelcol-xlaoom/otelcol-xlaoom.conf"
  has "$unit" "ExecStart=/usr/bin/otelcol-xlaoom \$OTELCOL_OPTIONS"
  has "$unit" "WantedBy=multi-user.target"
  has "$r/etc/otelcol-xlaoom/otelcol-xlaoom.conf" 'OTELCOL_OPTIONS="--config=/etc/otelcol-xlaoom/config.yaml"'
  has "$r/etc/otelcol-xlaoom/otelcol-xlaoom.conf" '#   OTELCOL_OPTIONS="--config=/etc/otelcol-xlaoom/all-in-one.yaml"'
  [ -d "$r/var/lib/otelcol-xlaoom" ] || fail "no storage directory"
  local bin=$r/usr/bin/otelcol-xlaoom
  [ -x "$bin" ] || fail "$bin is not executable"
  "$bin" --version | tee "$work/version.txt"
  has "$work/version.txt" "otelcol-xlaoom version $version"
  # validate: each config as the service reads it, with the unit's environment.
  for c in config.yaml all-in-one.yaml; do
    (set -a && . "$r/etc/otelcol-xlaoom/otelcol-xlaoom.conf" && HOST_NAME=$(hostname) "$bin" validate --config "$r/etc/otelcol-xlaoom/$c") ||
      fail "the packaged binary does not validate the packaged $c"
  done
}

echo "--- .deb: $deb"
dpkg-deb --info "$deb"
[ "$(dpkg-deb --field "$deb" Package)" = otelcol-xlaoom ] || fail "deb Package field"
[ "$(dpkg-deb --field "$deb" Version)" = "$pkgversion" ] || fail "deb Version $(dpkg-deb --field "$deb" Version), want $pkgversion"
dpkg-deb --contents "$deb" | awk '$1 !~ /^d/ || $NF ~ /var\/lib\/otelcol-xlaoom\/$/ {sub(/^\./, "", $NF); sub(/\/$/, "", $NF); print $NF}' | sort >"$work/deb-files.txt"
diff <(echo "$want") "$work/deb-files.txt" || fail "the .deb's files differ from the list above (- want, + got)"
dpkg-deb --control "$deb" "$work/deb-control"
diff <(echo "$conffiles") <(sort "$work/deb-control/conffiles") || fail "the .deb's conffiles differ"
grep -q useradd "$work/deb-control/preinst" || fail "the .deb's preinst does not create the user"
grep -q 'usermod -a -G systemd-journal' "$work/deb-control/preinst" || fail "the .deb's preinst does not let the user read the journal"
grep -q 'chown otelcol-xlaoom' "$work/deb-control/postinst" || fail "the .deb's postinst does not hand the storage directory to the user"
grep -q 'deb-systemd-invoke' "$work/deb-control/postinst" || fail "the .deb's postinst does not start the service"
[ -f "$work/deb-control/prerm" ] || fail "the .deb has no prerm"
grep -q 'rm -rf /var/lib/otelcol-xlaoom' "$work/deb-control/postrm" || fail "the .deb's postrm does not delete the data on purge"
dpkg-deb -x "$deb" "$work/deb-root"
installed "$work/deb-root"

if $rpmtools; then
  echo "--- .rpm: $rpm"
  rpm -qip "$rpm"
  [ "$(rpm -qp --queryformat '%{NAME}' "$rpm")" = otelcol-xlaoom ] || fail "rpm name"
  rpmversion=$(rpm -qp --queryformat '%{VERSION}' "$rpm")
  [ "$rpmversion" = "$pkgversion" ] || fail "rpm VERSION $rpmversion, want $pkgversion"
  # rpm lists every directory it owns; keep the ones the .deb test keeps.
  rpm -qpl "$rpm" | grep -Ev '^/(etc/otelcol-xlaoom|lib/systemd/system|lib/systemd|lib|usr/bin|usr|etc|var|var/lib)$' | sort >"$work/rpm-files.txt"
  diff <(echo "$want") "$work/rpm-files.txt" || fail "the .rpm's files differ (- want, + got)"
  diff <(echo "$conffiles") <(rpm -qp --configfiles "$rpm" | sort) || fail "the .rpm's config files differ"
  for c in config.yaml all-in-one.yaml; do
    rpm -qp --queryformat '[%{FILENAMES} %{FILEFLAGS:fflags}\n]' "$rpm" | grep -qx "/etc/otelcol-xlaoom/$c cn" ||
      fail "the .rpm does not mark $c %config(noreplace): $(rpm -qp --queryformat '[%{FILENAMES} %{FILEFLAGS:fflags}\n]' "$rpm")"
  done
  rpm -qp --scripts "$rpm" >"$work/rpm-scripts.txt"
  grep -q useradd "$work/rpm-scripts.txt" || fail "the .rpm's scripts do not create the user"
  mkdir -p "$work/rpm-root"
  # rpm2archive writes the payload as a tar with relative paths (rpm2cpio's
  # cpio archive holds absolute ones, and exits 1 on these packages).
  rpm2archive - <"$rpm" | tar -xzf - -C "$work/rpm-root"
  installed "$work/rpm-root"
  cmp "$work/rpm-root/usr/bin/otelcol-xlaoom" "$work/deb-root/usr/bin/otelcol-xlaoom" || fail "the .deb and the .rpm hold different binaries"
else
  echo "--- .rpm: $rpm SKIPPED (its files, config marking, scripts and binary are not checked): rpm or rpm2archive is not installed (apt-get install -y rpm)"
fi

echo "--- archives"
mkdir -p "$work/archive" "$work/xlaoom"
tar -xzf "otelcol-xlaoom_${version}_linux_$arch.tar.gz" -C "$work/archive"
for f in otelcol-xlaoom LICENSE README.md CHANGELOG.md examples/agent.yaml examples/gateway.yaml examples/all-in-one.yaml; do
  [ -f "$work/archive/$f" ] || fail "the otelcol-xlaoom archive lacks $f"
done
cmp "$work/archive/otelcol-xlaoom" "$work/deb-root/usr/bin/otelcol-xlaoom" || fail "the archive and the packages hold different binaries"
tar -xzf "xlaoom_${version}_linux_$arch.tar.gz" -C "$work/xlaoom"
[ "$("$work/xlaoom/xlaoom" --version)" = "xlaoom $version" ] || fail "xlaoom --version: $("$work/xlaoom/xlaoom" --version)"
if $rpmtools; then
  echo "packages OK: $deb, $rpm, version $version"
else
  echo "packages OK: $deb (the .rpm not checked: no rpm/rpm2archive), version $version"
fi
