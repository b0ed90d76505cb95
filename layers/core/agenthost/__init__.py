"""agenthost: the shared library of every agenthost Lambda function (the core layer).

Only what two or more functions use lives here; the core imports no protocol. Each module holds one concept:

* ``agent`` (package): the web-agent brain: page model, actions, guards, task reading, our policies.
* ``agents_client`` (package): a client for agents.json sites (discovery, sessions, retries, handoff) and its CLI.
* ``aws``: lazily created, cached boto3 clients with short timeouts and explicit attempt counts, and what an
  AWS error means (one mapping of error codes and transport errors to our error kinds).
* ``browser``: the client of the browser function (the same event contract locally and on Lambda).
* ``config``: the typed settings model, read once from the environment (``docs/CONFIGURATION.md``).
* ``deadline``: one time budget per turn, cut only by named reserves, and bound to the work it limits.
* ``dynamo``: one DynamoDB request after another within the time the work has left (timeouts, retries).
* ``errors``: ``AgentHostError``, the root of every exception agenthost defines, and its kinds.
* ``invocation``: how the current invocation's request arrived (through a function URL or not).
* ``items``: what an item of the table is: key builders, the attribute codec, packed values, billed size.
* ``limits``: one nesting-depth limit for every body agenthost parses.
* ``llm`` (package): LLM providers behind one ``complete_json`` interface (Bedrock, OpenAI-compatible).
* ``logs``: each invocation's log identity, kept per invocation.
* ``metering`` (package): usage per turn riding on the turn's writes, LLM budgets, EMF, botocore hooks.
* ``netguard``: outbound URL safety (no private, loopback, link-local or metadata addresses).
* ``plugins`` (package): bring your own agent: its interfaces, loading, and the guard around it.
* ``pricing``: the price table and the per-turn cost model.
* ``replay``: answering a request once: claims, kept answers and the verdict on what was stored.
* ``riders``: the attribute that rides on every table write (metering's usage), told whether it applied.
* ``secrets``: the secret resolver (literal locally, SSM or Secrets Manager deployed; one cache).
* ``signing``: webhook HMAC signatures over the raw body, constant-time compare, replay window.
* ``skills`` (package): exact solvers for structured problems a web task can pose.
* ``store``: the single DynamoDB table: typed reads and writes, conditional writes, transactions, TTL.
* ``urls``: a URL's host and origin, and a host's site by the Public Suffix List (one place for each).
* ``webapp``: the FastAPI app factory (JSON errors, request ids, body limits) and its Lambda handler.
"""

__version__ = "0.1.0"
