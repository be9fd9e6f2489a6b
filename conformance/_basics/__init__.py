"""What every part of the kit builds on: its errors, text and JSON reading, files, stop signals, and
the data every layer reads (areas, spec versions, requirements)."""
