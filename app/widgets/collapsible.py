"""A titled section that opens and closes with an arrow button (closed at first): choices most people never need."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolButton, QVBoxLayout, QWidget


class Collapsible(QWidget):
    """`body` holds the section's widgets; it shows only while the section is open."""

    def __init__(self, title: str, parent: QWidget | None = None):
        super().__init__(parent)
        self.toggle = QToolButton(text=title, checkable=True, autoRaise=True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonTextBesideIcon)
        self.toggle.setArrowType(Qt.RightArrow)
        self.toggle.toggled.connect(self.set_open)
        self.body = QWidget(visible=False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.toggle, 0, Qt.AlignLeft)
        layout.addWidget(self.body)

    def is_open(self) -> bool:
        return self.toggle.isChecked()

    def set_open(self, shown: bool) -> None:
        self.toggle.setChecked(shown)
        self.toggle.setArrowType(Qt.DownArrow if shown else Qt.RightArrow)
        self.body.setVisible(shown)
