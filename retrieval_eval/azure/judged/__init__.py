"""Drop-ins for azure-ai-evaluation's model-judged evaluators (1.18.10), run through the judge layer.

- :mod:`.reply`: reading the model's reply exactly as the SDK does, and the output dict it builds.
- :mod:`.inputs`: the SDK's input checks and how a conversation becomes turns; the aggregation of turns.
- :mod:`.request`: the request parameters the SDK fixes, and the endpoint of a ``model_config``.
- :mod:`.prompts`: this project's own prompts (the SDK's are not copied), asking for the same JSON.
- :mod:`.base`: the evaluator machinery (one call, a batch, the cache); :mod:`.quality`,
  :mod:`.grounding`, :mod:`.qa`: the evaluators.
"""
