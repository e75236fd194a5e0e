"""What the roles do: each workflow's roles and artifacts in its own folder (``development``, ``audit``,
``pipeline``), and the parts they share (model access, views of artifacts, reading a request, running and
verifying code in the sandbox, writing code with a model in ``coding``)."""
