# Historical bugs caught per run: the cases each bug took to be caught (log scale); a bug that
# escaped (survived the whole budget) is a red cross. Called by `gpuregress plot`:
#   gnuplot -e "datafile='...'; outbase='...'; names='ari/v1 radix_sort/v2'; nruns=7; \
#               ymax=100; plottitle='...'" plot_catch.gp
# datafile: block 0: run "label"; blocks 1..H: run cases seconds; block H+1: run cases (escaped).
nh = words(names)
set termoption noenhanced
do for [t in "png svg"] {
  if (t eq "png") {
    set terminal pngcairo size 1200,420 font "sans,10" noenhanced
    set output outbase . ".png"
  } else {
    set terminal svg size 1200,420 font "sans,10" noenhanced background rgb "white"
    set output outbase . ".svg"
  }
  set title plottitle font "sans,12"
  set grid
  set xrange [-0.5:nruns - 0.5]
  set xtics rotate by 30 right font "sans,8"
  set bmargin 6
  set logscale y
  set format y "%g"
  set yrange [0.8:ymax]
  set ylabel "cases until caught"
  set key outside right top font "sans,9"
  plot datafile index 0 using 1:(NaN):xtic(2) notitle, \
       for [i=1:nh] datafile index i using 1:2 with linespoints pt 7 ps 0.8 lw 1.5 \
         title word(names, i), \
       datafile index (nh + 1) using 1:2 with points pt 2 ps 2 lw 3 lc rgb "red" \
         title "escaped"
  unset output
}
