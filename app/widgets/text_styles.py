"""The text colours the app's widgets share, as Qt style sheets that follow the system's palette (light or dark)."""

HINT = "color: palette(placeholder-text);"  # an explanation beside a setting or a status, in grey
PROBLEM = "color: palette(text);"  # something the person must act on, in the text's own colour
