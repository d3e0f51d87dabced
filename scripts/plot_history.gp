# The history of each variant of one algorithm at its largest size, over the runs on one GPU
# model (x: run id and commit). Called by `gpuregress plot` (harness/plot.c):
#   gnuplot -e "datafile='...'; outbase='...'; names='v1@n=1 v2@n=1'; nruns=7; plottitle='...'" \
#           plot_history.gp
# datafile: block 0: run "label"; blocks 1..V: run median_ms min_ms max_ms (min/max unused).
# A series is named VARIANT@case#K: K numbers the cases as in the sizes plot and the dashboard.
nv = words(names)
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
  set ylabel "median time per launch (ms)"
  set key outside right top font "sans,9"
  plot datafile index 0 using 1:(NaN):xtic(2) notitle, \
       for [i=1:nv] datafile index i using 1:2 with linespoints pt 7 ps 0.6 lw 1.5 \
         title word(names, i)
  unset output
}
