"""The answers of the event kinds' routes (images, histograms, text, audio, curves,
hparams, layouts, embeddings), as JSON Schema."""

from __future__ import annotations

from visualdl.server._http.jsonschema import (
    BOOLEAN,
    INTEGER,
    NULLABLE_INTEGER,
    NULLABLE_NUMBER,
    NUMBER,
    STRING,
    WALL_TIME,
    array,
    mapping,
    nullable,
    obj,
)

__all__ = [
    "AUDIO",
    "CURVES",
    "CURVE_RUN",
    "DISTRIBUTION",
    "EMBEDDINGS",
    "HISTOGRAM",
    "HISTOGRAMS",
    "HPARAMS",
    "IMAGE",
    "IMAGES",
    "LAYOUT",
    "METRIC",
    "NEIGHBORS",
    "NULLABLE_NUMBERS",
    "PROJECTION",
    "RUN_TAG",
    "TEXT",
]


RUN_TAG = {"run": STRING, "tag": STRING}
IMAGES = obj(
    {
        **RUN_TAG,
        "steps": array(INTEGER),
        "wall_times": array(WALL_TIME),
        "widths": array(INTEGER),
        "heights": array(INTEGER),
        "samples": {
            **array(INTEGER),
            "description": "each image's position among the images of its step (0 first): a batch "
            "logged at one step is several images of one tag",
        },
    }
)
HISTOGRAM = obj(
    {
        "step": INTEGER,
        "wall_time": WALL_TIME,
        "edges": array(NUMBER),
        "counts": array(NUMBER),
        "min": {**NULLABLE_NUMBER, "description": "null: no finite value"},
        "max": NULLABLE_NUMBER,
        "sum": NULLABLE_NUMBER,
        "count": INTEGER,
        "nan_count": INTEGER,
        "pos_inf_count": INTEGER,
        "neg_inf_count": INTEGER,
    }
)
HISTOGRAMS = obj(
    {
        **RUN_TAG,
        "total_entries": INTEGER,
        "bins": {**NULLABLE_INTEGER, "description": "null: each entry's buckets as written"},
        "entries": array(HISTOGRAM),
    }
)
DISTRIBUTION = obj(
    {
        **RUN_TAG,
        "steps": array(INTEGER),
        "wall_times": array(WALL_TIME),
        "percentiles": array(NUMBER),
        "bands": {
            "type": "array",
            "items": array(NULLABLE_NUMBER),
            "description": "per step, the value at each percentile",
        },
    }
)
TEXT = obj(
    {**RUN_TAG, "entries": array(obj({"step": INTEGER, "wall_time": WALL_TIME, "text": STRING}))},
)
IMAGE = {"type": "string", "format": "binary"}
NULLABLE_NUMBERS = array(NULLABLE_NUMBER)
AUDIO = obj(
    {
        **RUN_TAG,
        "entries": array(
            obj(
                {
                    "step": INTEGER,
                    "wall_time": WALL_TIME,
                    "sample_rate": INTEGER,
                    "channels": INTEGER,
                    "frames": INTEGER,
                    "seconds": NUMBER,
                    "bytes": {"type": "integer", "description": "of the WAV file"},
                    "sample": {
                        **INTEGER,
                        "description": "the clip's position among the clips of its step (0 first): a batch "
                        "logged at one step is several clips of one tag",
                    },
                    "label": {**STRING, "description": "the clip's label as written (empty: none)"},
                }
            )
        ),
    }
)
CURVE_RUN = obj(
    {
        "run": STRING,
        "steps": array(INTEGER),
        "step": NULLABLE_INTEGER,
        "wall_time": WALL_TIME,
        "thresholds": NULLABLE_NUMBERS,
        "tp": NULLABLE_NUMBERS,
        "fp": NULLABLE_NUMBERS,
        "tn": NULLABLE_NUMBERS,
        "fn": NULLABLE_NUMBERS,
        "auc": {**NULLABLE_NUMBER, "description": "area under the curve, trapezoid rule; null under two points"},
    },
    optional=("wall_time", "thresholds", "tp", "fp", "tn", "fn", "auc"),
    description="one run's curve at one step (null: the run has none at or before the step asked); "
    "besides the counts, the two rates drawn, named by x and y: recall and precision (PR) or fpr and tpr "
    "(ROC); null where a rate is undefined (nothing predicted positive)",
)
CURVES = obj(
    {
        "kind": {"enum": ["pr_curves", "roc_curves"]},
        "tag": STRING,
        "x": {"enum": ["recall", "fpr"]},
        "y": {"enum": ["precision", "tpr"]},
        "steps": {**array(INTEGER), "description": "every step of the tag in the runs asked for"},
        "runs": array(CURVE_RUN),
        "missing": {**array(STRING), "description": "runs asked for that have no such curve"},
    }
)
METRIC = {
    "type": ["object", "null"],
    "properties": {
        "last": NULLABLE_NUMBER,
        "last_nonfinite": {"enum": ["nan", "inf", "-inf", None]},
        "step": INTEGER,
        "min": NULLABLE_NUMBER,
        "max": NULLABLE_NUMBER,
        "points": INTEGER,
    },
    "required": ["last", "last_nonfinite", "step", "min", "max", "points"],
    "description": "the metric's scalar tag in the run: last value (null when not finite: see last_nonfinite) "
    "and its step, min and max over the finite values; null when the run never logged it",
}
HPARAMS = obj(
    {
        "hparams": array(
            obj(
                {"name": STRING, "type": {"enum": ["number", "boolean", "string"]}, "values": {"type": "array"}},
                optional=("values",),
                description="a hyperparameter over the runs; booleans and strings list their distinct values",
            )
        ),
        "metrics": {
            **array(STRING),
            "description": "the trials' metrics by name: a scalar tag, or group/tag for a tag read in the run "
            "group below each trial (declared by an experiment above the trials, else every scalar tag of them)",
        },
        "metric_sources": array(
            obj(
                {"name": STRING, "tag": STRING, "group": STRING},
                description="where each metric is read: the tag in the trial's run (group empty) or in the run "
                "group below it",
            )
        ),
        "runs": array(
            obj(
                {
                    "run": STRING,
                    "wall_time": WALL_TIME,
                    "hparams": {"type": "object", "description": "values as written: numbers, booleans, strings"},
                    "metrics": mapping(METRIC),
                }
            )
        ),
    }
)
LAYOUT = obj(
    {
        "categories": array(
            obj(
                {
                    "title": STRING,
                    "closed": BOOLEAN,
                    "charts": array(
                        obj(
                            {
                                "title": STRING,
                                "multiline": array(STRING),
                                "margin": array(array(STRING)),
                                "tags": {**array(STRING), "description": "scalar tags the chart draws"},
                                "errors": array(STRING),
                            }
                        )
                    ),
                }
            )
        )
    }
)
EMBEDDINGS = obj(
    {
        **RUN_TAG,
        "entries": array(
            obj(
                {
                    "index": INTEGER,
                    "step": INTEGER,
                    "wall_time": WALL_TIME,
                    "rows": INTEGER,
                    "dimension": INTEGER,
                    "metadata_header": array(STRING),
                }
            )
        ),
    }
)
PROJECTION = obj(
    {
        **RUN_TAG,
        "index": INTEGER,
        "method": {"enum": ["pca", "tsne", "umap"]},
        "dims": INTEGER,
        "rows": INTEGER,
        "dimension": INTEGER,
        "status": {
            "enum": ["done", "computing"],
            "description": "projections run in the background (a request waits up to 1 s): ask again",
        },
        "points": {"type": "integer", "description": "rows projected: all for PCA, at most 5,000 sampled otherwise"},
        "coordinates": {
            "type": "string",
            "contentEncoding": "base64",
            "description": "little-endian float32, points x dims, row after row",
        },
        "sample": {
            "type": ["string", "null"],
            "contentEncoding": "base64",
            "description": "little-endian int32 rows projected, when a sample (null: every row, in order)",
        },
        "explained_variance": {**nullable({"type": "array"}), "description": "PCA: variance share per component"},
        "metadata_header": array(STRING),
        "metadata": {"type": "array", "items": array(STRING), "description": "one list per metadata column"},
        "sprite": {
            **nullable(obj({k: INTEGER for k in ("width", "height", "image_width", "image_height", "per_row")})),
            "description": "the label images (TensorBoard's sprite, /api/projection/sprite): one image_width x "
            "image_height px per row, per_row a row from the top left; null: none",
        },
    },
    optional=("coordinates", "sample", "explained_variance"),
)
NEIGHBORS = obj(
    {
        **RUN_TAG,
        "index": INTEGER,
        "point": INTEGER,
        "metric": {"enum": ["cosine", "euclidean"]},
        "neighbors": array(
            obj(
                {
                    "row": INTEGER,
                    "distance": {**NULLABLE_NUMBER, "description": "null: a vector holds NaN or an infinity"},
                    "labels": array(STRING),
                }
            )
        ),
    }
)
