"""Development tools, not part of the app: the bench, studies, screenshots and hush-word training."""
