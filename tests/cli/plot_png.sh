#!/bin/sh
# plot_png.sh LSIM -- `lsim plot` writes SVG only: an output named for a
# raster format (.png, .jpg, .pdf, ... in any case) is refused with exit 2
# and the reason, before the database is read and with no file written (it
# used to get SVG bytes under a .png name); .svg and a name with no
# extension still get the picture.
# Run from the top of the repository.
set -u
LSIM=${1:-build/lsim}
. tests/cli/lib.sh
cli_begin plot-png

"$LSIM" run scenarios/seed-competing-consumers.yaml --out "$TMP/seed.db" --quiet >/dev/null 2>&1
check "the run for the plots" [ -s "$TMP/seed.db" ]

for name in x.png X.PNG x.jpg x.jpeg x.pdf; do
    expect_error 2 "lsim: $TMP/out/$name: lsim plot writes SVG only (no PNG or other raster library): name the file .svg (a converter such as rsvg-convert makes a PNG of it)" -- \
        "$LSIM" plot "$TMP/seed.db" --kind gantt -o "$TMP/out/$name"
done
#   refused before the database is opened: a missing one is not the reason given
expect_error 2 "lsim: $TMP/out/x.png: lsim plot writes SVG only (no PNG or other raster library): name the file .svg (a converter such as rsvg-convert makes a PNG of it)" -- \
    "$LSIM" plot "$TMP/none.db" --kind gantt -o "$TMP/out/x.png"

rm -rf "$TMP/out" && mkdir -p "$TMP/out"
"$LSIM" plot "$TMP/seed.db" --kind gantt -o "$TMP/out/x.svg" >/dev/null 2>&1
check ".svg is written" grep -q '<svg' "$TMP/out/x.svg"
"$LSIM" plot "$TMP/seed.db" --kind gantt -o "$TMP/out/picture" >/dev/null 2>&1
check "a name with no extension is written" grep -q '<svg' "$TMP/out/picture"
"$LSIM" plot "$TMP/seed.db" --kind gantt -o "$TMP/out/v1.png/picture" >/dev/null 2>"$TMP/err"
check "a folder named .png is no extension (exit 2 as any output that cannot be created)" [ $? -eq 2 ]
check "... and the error is the missing folder, not the raster refusal" \
    sh -c "grep -q 'cannot write' '$TMP/err' && ! grep -q 'SVG only' '$TMP/err'"

echo "$count plot-png checks, $failures failed"
[ "$failures" -eq 0 ]
