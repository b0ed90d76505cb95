"""agents.json Interaction API: a reusable site SDK (``sdk``) and the reference store (``app``)."""
