#!/usr/bin/env bash
# Formats the C sources with the checked-in .clang-format, or with --check fails (listing the
# files) when any file is not formatted.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(git ls-files '*.c' '*.h' 2>/dev/null || find include core cli coordinator launch net proc node bench tests -name '*.[ch]')
[ ${#files[@]} -gt 0 ] || exit 0
if [ "${1:-}" = "--check" ]; then
    bad=()
    for f in "${files[@]}"; do
        clang-format --style=file "$f" | cmp -s - "$f" || bad+=("$f")
    done
    if [ ${#bad[@]} -gt 0 ]; then
        echo "format: these files are not formatted (run scripts/format.sh):" >&2
        printf '  %s\n' "${bad[@]}" >&2
        exit 1
    fi
    echo "format: ${#files[@]} files checked"
else
    clang-format --style=file -i "${files[@]}"
fi
