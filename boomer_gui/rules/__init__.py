"""Rules: the rule table, the inspector, why-this-head and the explanation of an example."""
