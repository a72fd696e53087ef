#!/bin/sh
# Generates one man page at build time (CMakeLists.txt, target man) with help2man from the built
# program's own --help and --version, the one source of its text, plus the sections written in
# docs/man/PROGRAM.h2m. For stepnet, every command's --help becomes part of section COMMANDS.
# usage: help2man.sh HELP2MAN PROGRAM INCLUDE.h2m OUTPUT.1 DOCDIR (DOCDIR: where the install puts
# README.md and docs/, named in SEE ALSO)
set -eu
help2man=$1 prog=$2 include=$3 out=$4 docdir=${5:-/usr/share/doc/stepnet}
name=$(basename "$prog")
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
sed "s|@DOCDIR@|$docdir|g" "$include" >"$tmp"
if [ "$name" = stepnet ]; then
    # the commands, each with the text of `stepnet COMMAND --help`, verbatim
    printf '\n[COMMANDS]\n' >>"$tmp"
    for cmd in model sim export synth run bench algos table keygen; do
        printf '.SS "stepnet %s"\n.nf\n' "$cmd" >>"$tmp"
        "$prog" "$cmd" --help | sed -e 's/\\/\\e/g' -e 's/^\([.'"'"']\)/\\\&\1/' >>"$tmp"
        printf '.fi\n' >>"$tmp"
    done
fi
case $name in
stepnet) what="run, verify and time collective algorithms on emulated interconnection networks" ;;
*) what="one node of a stepnet network, started by stepnet run or joined by hand" ;;
esac
# help2man reads the program's output in the C locale; no info page exists
LC_ALL=C "$help2man" --no-info --no-discard-stderr --section=1 --name="$what" \
    --include="$tmp" --output="$out" "$prog"
# Two touches help2man cannot be told: "Exit status:" in --help becomes the section EXIT STATUS
# (help2man would make it a subsection of OPTIONS), and the EXAMPLES are command lines, one per
# line as written (help2man would fill them into one paragraph).
awk '$0 == ".SS \"Exit status:\"" { print ".SH \"EXIT STATUS\""; st = 1; next }
     st { st = 0; if ($0 == ".IP") { print ".PP"; next } }
     /^\.SH EXAMPLES/ { ex = 1; print; next }
     ex && /^\.(IP|PP)$/ && !open { print ".IP"; print ".nf"; open = 1; next }
     ex && /^\.(SH|PP)/ { if (open) print ".fi"; ex = 0; open = 0 }
     { print }' "$out" >"$tmp"
cat "$tmp" >"$out"
