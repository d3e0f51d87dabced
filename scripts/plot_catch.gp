# Historical bugs caught per run: one row per bug, one column per run; a dot where the bug was
# caught, labelled with the cases it took (so bugs caught at once do not stack on one another);
# a red cross where it escaped (survived the whole budget). Called by `gpuregress plot`:
#   gnuplot -e "datafile='...'; outbase='...'; names='ari/v1 radix_sort/v2'; nruns=7; \
#               ymax=100; plottitle='...'" plot_catch.gp
# datafile: block 0: run "label"; blocks 1..H: run cases seconds; block H+1: run cases row
# "escaped" (the escapes; when none, one line off the plot at x = -10). ymax is unused (kept for the caller's interface).
nh = words(names)
set termoption noenhanced
do for [t in "png svg"] {
  if (t eq "png") {
    set terminal pngcairo size 1200,(140 + 34 * nh) font "sans,10" noenhanced
    set output outbase . ".png"
  } else {
    set terminal svg size 1200,(140 + 34 * nh) font "sans,10" noenhanced background rgb "white"
    set output outbase . ".svg"
  }
  set title plottitle font "sans,12"
  set grid xtics
  set xrange [-0.5:nruns - 0.5]
  set xtics rotate by 30 right font "sans,8"
  set bmargin 6
  set lmargin 24
  set yrange [nh + 0.6:0.1]
  set ytics () font "sans,9"
  do for [i=1:nh] { set ytics add (word(names, i) i) }
  unset key
  plot datafile index 0 using 1:(NaN):xtic(2) notitle, \
       for [i=1:nh] datafile index i using 1:(i) with points pt 7 ps 1.2 lc i notitle, \
       for [i=1:nh] datafile index i using 1:(i):(sprintf("%d", $2)) with labels \
         offset 0,0.8 font "sans,8" notitle, \
       datafile index (nh + 1) using 1:3 with points pt 2 ps 2 lw 3 lc rgb "red" notitle, \
       datafile index (nh + 1) using 1:3:4 with labels offset 0,-0.9 font "sans,8" \
         tc rgb "red" notitle
  unset output
}
