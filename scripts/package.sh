#!/usr/bin/env bash
# Builds the Debian package stepnet_VERSION_ARCH.deb from this source tree with
# dpkg-buildpackage and debian/ (debhelper, CMake's install rules): both programs, their man
# pages, the systemd service stepnet-node with its settings (/etc/default/stepnet-node) and
# logrotate file (deploy/systemd/). The build runs in a temporary copy of the tree (the files git
# tracks, and the new ones it does not ignore), so that nothing is written here but the package.
#
#   scripts/package.sh [OUTDIR]    the package into OUTDIR (default: build-deb/), its path on stdout
#
# Needs dpkg-dev and debhelper (scripts/setup.sh installs them) besides the build's packages.
# Install it on a node machine with `apt install ./stepnet_VERSION_ARCH.deb` (docs/deploy.md).
set -euo pipefail
cd "$(dirname "$0")/.."
src=$PWD
case $# in
0) out=$src/build-deb ;;
1) case "$1" in
   -h | --help) sed -n '2,11p' "$0"; exit 0 ;;
   -*) echo "package: unknown option '$1': expected OUTDIR or --help" >&2; exit 2 ;;
   *) out=$1 ;;
   esac ;;
*) echo "package: too many arguments ('$*'): expected at most OUTDIR" >&2; exit 2 ;;
esac
for tool in dpkg-buildpackage:dpkg-dev dh:debhelper; do
    command -v "${tool%%:*}" >/dev/null || {
        echo "package: ${tool%%:*} not found (Debian package ${tool#*:}; scripts/setup.sh installs it)" >&2
        exit 1
    }
done

# one version: CMake's project(VERSION), which debian/changelog must repeat
version=$(sed -n 's/^project(stepnet VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
deb_version=$(dpkg-parsechangelog -l debian/changelog -S Version)
if [ "$version" != "$deb_version" ]; then
    echo "package: CMakeLists.txt says version $version, debian/changelog $deb_version: add a" \
        "debian/changelog entry for $version (dch -v $version)" >&2
    exit 1
fi
arch=$(dpkg-architecture -qDEB_HOST_ARCH)

work=$(mktemp -d /tmp/stepnet-package.XXXXXX)
trap 'rm -rf "$work"' EXIT
tree=$work/stepnet-$version
mkdir "$tree"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard |
        (while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done) |
        tar -c --null -T - -f - | tar -x -C "$tree"
else # a tarball of the sources: everything but build directories
    tar -c --exclude='./build' --exclude='./build-*' -f - . | tar -x -C "$tree"
fi

echo "package: building stepnet $version for $arch in $tree (log: $work/build.log)" >&2
if ! (cd "$tree" && DEB_BUILD_OPTIONS="parallel=$(nproc)" dpkg-buildpackage -b -us -uc \
    >"$work/build.log" 2>&1); then
    tail -n 40 "$work/build.log" >&2
    echo "package: dpkg-buildpackage failed (the last 40 lines of its log above)" >&2
    exit 1
fi
deb=stepnet_${version}_${arch}.deb
mkdir -p "$out"
mv "$work/$deb" "$out/$deb"
echo "$out/$deb"
