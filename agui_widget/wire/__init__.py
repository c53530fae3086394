"""The widget wire (docs/wire.md): its messages declared once (the requests a view sends, the
payloads the kernel sends), their JSON Schema, the codec the kernel runs, and the transport that
coalesces events into few comm messages."""
