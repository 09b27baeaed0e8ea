"""The notebook's figures and jobs (layer 9, an edge; :mod:`visualdl.notebook` is the public face).

Built from the provider's typed values and the job analysis' (never the server's JSON),
without a server and without IPython; re-running a cell reads only what was written since.

- ``figures.py``: plotly figures of a logdir's scalars, images and histograms.
- ``bands.py``: a job role's bands as the web UI draws them (min-max, p5-p95, p25-p75 over
  the ranks, the median dashed), the hover naming the rank at each edge.
- ``style.py``: how the figures look, as the web UI draws: run colours, line style, smoothing.
- ``jobs.py``: a distributed job in one call: its overview as values (goodput, the timeline of
  ends, stragglers, throughput).
"""
