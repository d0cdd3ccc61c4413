"""The app's windows and dialogs."""
