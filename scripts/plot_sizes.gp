# Time and throughput against size for every variant of one algorithm, with the copy-bandwidth
# floor. Called by `gpuregress plot` (harness/report/plot.c), which writes the data file:
#   gnuplot -e "datafile='...'; outbase='...'; names='v1 v2'; kinds='fixed peer'; ncases=5; \
#               labellines=4; plottitle='...'" plot_sizes.gp
# datafile: blocks 0..V-1 (per variant): case median_ms gbps min_ms max_ms (min/max unused);
#           block V: case floor_ms copy_gbps "label" (\n between parameters: labellines lines).
# Writes outbase.png and outbase.svg.
nv = words(names)
set termoption noenhanced
set style line 100 lc rgb "black" dt 3 lw 2
# dashed: the peer library; dotted: historical (buggy) versions kept as fixtures
dash(i) = word(kinds, i) eq "peer" ? 2 : word(kinds, i) eq "historical" ? 3 : 1
width(i) = word(kinds, i) eq "peer" ? 2.5 : 1.5
vtitle(i) = word(names, i) . (word(kinds, i) eq "fixed" ? "" : " (" . word(kinds, i) . ")")
do for [t in "png svg"] {
  if (t eq "png") {
    set terminal pngcairo size 1200,520 font "sans,10" noenhanced
    set output outbase . ".png"
  } else {
    set terminal svg size 1200,520 font "sans,10" noenhanced background rgb "white"
    set output outbase . ".svg"
  }
  set multiplot layout 1,2 title plottitle font "sans,12"
  set grid
  set xrange [-0.5:ncases - 0.5]
  set xtics norotate font "sans,8"
  set bmargin labellines + 2
  set key top left opaque font "sans,9"
  set logscale y
  set ylabel "median time per launch (ms)"
  set format y "%g"
  plot for [i=1:nv] datafile index (i - 1) using 1:2 with linespoints dt dash(i) lw width(i) \
         pt 7 ps 0.6 title vtitle(i), \
       datafile index nv using 1:2:xtic(4) with lines ls 100 title "copy-bandwidth floor"
  set ylabel "throughput (GB/s, work model)"
  unset logscale y
  set yrange [0:*]
  set offsets 0, 0, graph 0.12, 0
  set key top left opaque
  plot for [i=1:nv] datafile index (i - 1) using 1:3 with linespoints dt dash(i) lw width(i) \
         pt 7 ps 0.6 title vtitle(i), \
       datafile index nv using 1:3:xtic(4) with lines ls 100 title "copy bandwidth"
  unset multiplot
  unset output
  unset yrange
  set offsets 0, 0, 0, 0
}
