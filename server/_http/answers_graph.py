"""The answers of the graph routes, as JSON Schema."""

from __future__ import annotations

from visualdl.server._http.jsonschema import (
    BOOLEAN,
    INTEGER,
    NULLABLE_INTEGER,
    NUMBER,
    STRING,
    WALL_TIME,
    array,
    nullable,
    obj,
)

__all__ = ["GRAPH", "GRAPHS", "GRAPH_NODE", "GRAPH_SEARCH", "VALUE"]


GRAPHS = obj(
    {
        "graphs": array(
            obj(
                {
                    "source": {"enum": ["file", "log"]},
                    "name": STRING,
                    "size": NULLABLE_INTEGER,
                    "model": {"type": "string", "description": "a --model file's id (source file)"},
                    "run": {"type": "string", "description": "the run that logged it (source log)"},
                    "wall_time": WALL_TIME,
                },
                optional=("model", "run", "wall_time"),
            )
        )
    }
)
VALUE = obj({"name": STRING}, description="a graph's input or output, with dtype and shape when known")
GRAPH = obj(
    {
        "source": obj(
            {
                "run": nullable(STRING),
                "name": nullable(STRING),
                "model": nullable(STRING),
                "label": STRING,
            }
        ),
        "model": {"type": "object", "description": "the model's properties (producer, opset, ...)"},
        "warnings": array(STRING),
        "path": STRING,
        "breadcrumb": {"type": "array", "description": "the subgraphs from the main graph down to this one"},
        "graph": obj(
            {
                "name": STRING,
                "inputs": array(VALUE),
                "outputs": array(VALUE),
                "node_count": INTEGER,
                "group_count": INTEGER,
                "parameter_tensors": INTEGER,
                "parameter_count": INTEGER,
            }
        ),
        "nodes": array(
            obj(
                {
                    "id": STRING,
                    "kind": {"enum": ["op", "group", "stack", "input", "output"]},
                    "x": NUMBER,
                    "y": NUMBER,
                    "w": NUMBER,
                    "h": NUMBER,
                },
                description="an op, a collapsed name-scope group, a stack of siblings alike (opened by its "
                "'stack' key in expand), or a graph input or output, placed",
            )
        ),
        "edges": array(obj({"source": STRING, "target": STRING, "points": {"type": "array"}})),
        "expanded": array(STRING),
        "width": NUMBER,
        "height": NUMBER,
    }
)
GRAPH_NODE = obj(
    {
        "id": STRING,
        "name": STRING,
        "op_type": STRING,
        "attributes": array(
            obj(
                {
                    "name": STRING,
                    "type": STRING,
                    "value": {},
                    "length": {
                        "type": "integer",
                        "description": "a value cut for display: the string's bytes or the list's items",
                    },
                    "about": {
                        "type": "string",
                        "description": "the attribute's doc string; a GraphDef's says the true size of a value cut",
                    },
                },
                optional=("length", "about"),
            )
        ),
        "doc_string": STRING,
        "inputs": array(obj({"name": STRING, "dtype": STRING, "shape": {}})),
        "outputs": array(obj({"name": STRING, "dtype": STRING, "shape": {}})),
        "parameters": array({"type": "object", "description": "name, dtype, shape, size; never values"}),
        "parameter_count": INTEGER,
        "groups": array(STRING),
        **{
            f"{key}_count": {
                "type": "integer",
                "description": f"how many {key} the node has, when the list holds only the first 1,000",
            }
            for key in ("inputs", "outputs", "attributes", "parameters", "folded")
        },
    },
    optional=tuple(f"{key}_count" for key in ("inputs", "outputs", "attributes", "parameters", "folded")),
)
GRAPH_SEARCH = obj(
    {
        "query": STRING,
        "hits": array(obj({"id": STRING, "name": STRING, "op_type": STRING, "groups": array(STRING)})),
        "truncated": BOOLEAN,
    }
)
