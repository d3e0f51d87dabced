# The history of each benchmark of one algorithm: one plot per benchmark and GPU model. Called by
# `gpuregress plot` (harness/report/trends.c), which writes the data file and the per-plot variables:
#   gnuplot -e "datafile='...'; outprefix='.../trend_ari_'; nseries=2; nnights=30; \
#               t1='title'; yl1=0.9; yh1=1.2; t2=..." plot_trend.gp
# datafile: block 0: night "label" (the ticks: about a dozen); block 2k-1: night median_ms
#           band_lo band_hi (series k: the latest 90 nights one by one, band = the 95% interval of
#           the night's median; older nights a point per 7, band = the quartiles of their
#           medians); block 2k: night "label" of its change points (one line at x = -10 when none).
# Writes outprefixK.svg for K = 1..nseries (embedded in the history pages): the median line, the
# band, change points as red dashed lines; linear y axis (yl..yh, from trends.c: the recent
# nights, the 2nd-98th percentile of the older ones, and at least +-12% around the typical
# level, so that a 10% step is plain to see). With mouseprefix, also mouseprefixK.svg: the same
# plot standalone with gnuplot's mousing (wheel zoom, drag to pan, values under the pointer).
set termoption noenhanced
set grid
set xtics rotate by 30 right font "sans,7"
set ylabel "median time (ms)"
set key outside top center horizontal font "sans,8"
set bmargin 4
set lmargin 9
many = nnights > 60
do for [i=1:nseries] {
  set terminal svg size 620,280 font "sans,9" noenhanced background rgb "white"
  set output sprintf("%s%d.svg", outprefix, i)
  set title value(sprintf("t%d", i)) font "sans,10"
  yh = value(sprintf("yh%d", i))
  set xrange [0.5:nnights + 0.5]
  set yrange [value(sprintf("yl%d", i)):yh]
  plot datafile index 0 using 1:(NaN):xtic(2) notitle, \
       datafile index (2 * i - 1) using 1:3:4 with filledcurves fc rgb "#9ecae1" \
         fs transparent solid 0.5 noborder \
         title (many ? "95% interval of the median (weekly: quartiles)" : "95% interval of the median"), \
       datafile index (2 * i - 1) using 1:2 with lines lw 1.5 lc rgb "#08519c" \
         title (many ? "median (older nights: weekly)" : "median"), \
       datafile index (2 * i - 1) using 1:(many ? NaN : $2) with points pt 7 ps 0.5 lc rgb "#08519c" \
         notitle, \
       datafile index (2 * i) using 1:(yh) with impulses dt 2 lw 2 lc rgb "#d62728" \
         title "change point", \
       datafile index (2 * i) using 1:(yh):2 with labels right offset -0.5,-0.8 font "sans,8" \
         tc rgb "#d62728" notitle
  unset output
  if (exists("mouseprefix")) {
    set terminal svg size 1000,450 font "sans,10" noenhanced background rgb "white" mouse standalone
    set output sprintf("%s%d.svg", mouseprefix, i)
    replot
    unset output
  }
}
