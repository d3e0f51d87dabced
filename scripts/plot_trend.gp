# The history of each benchmark of one algorithm: one plot per benchmark and GPU model. Called by
# `gpuregress plot` (harness/report/trends.c), which writes the data file and the per-plot variables:
#   gnuplot -e "datafile='...'; outprefix='.../trend_ari_'; nseries=2; nnights=30; \
#               t1='title'; yl1=0.9; yh1=1.2; t2=..." plot_trend.gp
# datafile: block 0: night "label"; block 2k-1: night median_ms min_ms max_ms (series k);
#           block 2k: night "label" of its change points (one line at x = -10 when none).
# Writes outprefixK.svg for K = 1..nseries: the median line, the min-max band of the night's
# samples, change points as red dashed lines; linear y axis (yl..yh, from trends.c: at least
# +-12% around the typical level, so that a 10% step is plain to see).
set termoption noenhanced
set terminal svg size 620,280 font "sans,9" noenhanced background rgb "white"
set grid
set xtics rotate by 30 right font "sans,7"
set ylabel "median time (ms)"
set key outside top center horizontal font "sans,8"
set bmargin 4
set lmargin 9
do for [i=1:nseries] {
  set output sprintf("%s%d.svg", outprefix, i)
  set title value(sprintf("t%d", i)) font "sans,10"
  yh = value(sprintf("yh%d", i))
  set xrange [0.5:nnights + 0.5]
  set yrange [value(sprintf("yl%d", i)):yh]
  plot datafile index 0 using 1:(NaN):xtic(2) notitle, \
       datafile index (2 * i - 1) using 1:3:4 with filledcurves fc rgb "#9ecae1" \
         fs transparent solid 0.5 noborder title "min-max of the night's samples", \
       datafile index (2 * i - 1) using 1:2 with linespoints pt 7 ps 0.5 lw 1.5 \
         lc rgb "#08519c" title "median", \
       datafile index (2 * i) using 1:(yh) with impulses dt 2 lw 2 lc rgb "#d62728" \
         title "change point", \
       datafile index (2 * i) using 1:(yh):2 with labels right offset -0.5,-0.8 font "sans,8" \
         tc rgb "#d62728" notitle
  unset output
}
