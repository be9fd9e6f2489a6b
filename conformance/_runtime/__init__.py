"""The runtime side: the adapter interfaces, the table of operations, the one boundary every call
crosses, the reference as an adapter, and the protocol server."""
