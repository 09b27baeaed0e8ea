"""Writing (layer 4a: above storage, beside the index): :class:`LogWriter` and :class:`SummaryWriter`.

The writers check and convert on the caller's thread, then delegate to one sink per log file,
which owns the appender, the buffers and the background thread; the caller's thread keeps
the expensive part (PNG encoding, binning) as a callable that the sink's thread runs. Never
imports the index: writing never needs the reader.

- ``_writer.py``: ``LogWriter``, the training loop's handle: validates, then delegates;
  ``_options.py``: its arguments checked once into one frozen value (``WriterOptions``), the
  process's place in its job resolved.
- ``_summary.py``: ``SummaryWriter``: ``torch.utils.tensorboard.SummaryWriter``'s calls over it;
  ``_torchvalues.py``: what torch's writer accepts and how it converts it, for a drop-in (steps
  as ``int(step)``, images scaled and clipped, out-of-range PR predictions, warned once per tag).
- What each call takes, checked on the caller's thread: ``_convert.py`` (numbers, images,
  histograms; pure), ``_figures.py`` (figures and image matrices), ``_audio.py`` (clips to 16-bit
  PCM), ``_curves.py`` (PR and ROC curves, binned on the writer's thread), ``_embeddings.py``,
  ``_hparams.py``, ``_replicated.py`` (a tag declared replicated), ``_export.py`` (torch's and
  paddle's models to ONNX, the framework imported only when such a model is given).
- ``_sink.py``: one log file, the data waiting for it, and the thread that writes it.
- ``_lifecycle.py``: all the sinks through the life of the process: exit, fork, SIGTERM, an
  uncaught exception; ``_sigterm.py``: what a terminated child logged is written first;
  ``_ends.py``: how the process ended (close, an uncaught exception, a signal), told to every
  open writer; ``_fatal.py``: ``faulthandler`` pointed at a local log's fatal-signal sidecar
  while a writer is open.
- ``_launcher.py``: the process's place in a distributed job, read from the launcher's
  environment (torchrun, PaddlePaddle, ``TF_CONFIG``, Horovod, MPI, SLURM; pure).
- ``_sampler.py``: the process's one system-metrics thread (a daemon, started with the first
  writer that has system metrics on, ended with the last; a forked child starts its own):
  each writer subscribes with its period and sink, and at each tick the process's, the host's
  and (``_gpumetrics.py``, NVML) the GPUs' metrics are read once (``_sysmetrics.py``: the reads,
  and each writer's row from its previous reading and this one); each writer due gets one
  record in its sink, which never blocks and never takes the writer's error.
- ``_provenance.py``: where the process came from (command line, interpreter, working
  directory, the git commit, branch and dirty flag of the script's work tree, key packages'
  versions), built once per process on a writer's thread and written after each header.
"""

from visualdl.sdk._summary import SummaryWriter
from visualdl.sdk._writer import LogWriter

__all__ = ["LogWriter", "SummaryWriter"]
