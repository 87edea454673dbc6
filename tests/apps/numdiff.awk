# numdiff.awk: compares two result files line by line, numbers within a tolerance, the rest
# exactly. Usage: awk -v rel=1e-6 -v abs=1e-9 -f numdiff.awk A B
# Tokens are split at blanks and at = , ( ) ; a token that is a number in both files passes
# when |a-b| <= max(rel * max(|a|,|b|), abs); any other token must be equal.
# Prints "numdiff: equal within rel R abs A (max relative difference D on N numbers, first
# difference: ...)" or "numdiff: DIFFERENT at line L: ..." and exits 1.
function isnum(s) { return s ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eEdD][-+]?[0-9]+)?%?$/ }
function val(s) { sub(/%$/, "", s); gsub(/[dD]/, "e", s); return s + 0 }
function absv(x) { return x < 0 ? -x : x }
BEGIN { sep = "[ \t=,();]+"; maxrel = 0; nums = 0; first = "" }
FNR == NR { a[FNR] = $0; na = FNR; next }
{
  nb = FNR
  if (!(FNR in a)) { printf "numdiff: DIFFERENT: %s has more lines than %s (line %d: %s)\n", FILENAME, ARGV[1], FNR, $0; bad = 1; exit 1 }
  ka = split(a[FNR], ta, sep)
  kb = split($0, tb, sep)
  if (ka != kb) { printf "numdiff: DIFFERENT at line %d (token count):\n  %s\n  %s\n", FNR, a[FNR], $0; bad = 1; exit 1 }
  for (i = 1; i <= ka; i++) {
    if (ta[i] == tb[i]) { if (isnum(ta[i])) nums++; continue }
    if (isnum(ta[i]) && isnum(tb[i])) {
      x = val(ta[i]); y = val(tb[i]); d = absv(x - y)
      m = absv(x) > absv(y) ? absv(x) : absv(y)
      r = m > 0 ? d / m : 0
      nums++
      if (r > maxrel) maxrel = r
      if (first == "") first = sprintf("line %d: %s vs %s", FNR, ta[i], tb[i])
      lim = rel * m; if (abs > lim) lim = abs
      if (d <= lim) continue
      printf "numdiff: DIFFERENT at line %d: %s vs %s (relative %.3g, allowed rel %s abs %s)\n  %s\n  %s\n", FNR, ta[i], tb[i], r, rel, abs, a[FNR], $0
      bad = 1; exit 1
    }
    printf "numdiff: DIFFERENT at line %d: '%s' vs '%s'\n  %s\n  %s\n", FNR, ta[i], tb[i], a[FNR], $0
    bad = 1; exit 1
  }
}
END {
  if (bad) exit 1
  if (nb < na) { printf "numdiff: DIFFERENT: %s has fewer lines than %s (%d < %d)\n", ARGV[2], ARGV[1], nb, na; exit 1 }
  printf "numdiff: equal within rel %s abs %s (max relative difference %.3g over %d numbers%s)\n", rel, abs, maxrel, nums, first == "" ? "" : "; first difference " first
}
