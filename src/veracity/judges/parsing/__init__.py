"""Read a judge's reply without trusting its shape.

Pure functions, no I/O: find the JSON (strict, fenced, embedded, repaired) and read it with
the prompt's own output model (:mod:`veracity.prompts.reply`), fall back to the legacy text
formats of the claim verdicts, recognise refusals, and match verdicts to claims by text,
then by position. Each result says which reading path produced it and every coercion made.
"""
