"""The user's objects: types, fields, SNodes, matrices and structs, ndarrays, funcs.

The frontend and the session (``ti_notebook/session/``) read them; the session turns
a kernel call into a launch.
"""
