"""Commands around the application: the responsiveness benchmark and the screenshot maker."""
