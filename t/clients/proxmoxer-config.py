#!/usr/bin/python3
"""Drives vsm serve's storage configuration through python3-proxmoxer, unchanged, as a script
written for Proxmox VE would: creates a dir storage, reads it, changes it with the digest it read
(setting one property and deleting another), lists the storages of its type, removes it; prints
what it got as one JSON object.

usage: proxmoxer-config.py PORT CERTIFICATE USER@REALM TOKENID SECRET STORAGE PATH
"""
import json
import sys

from proxmoxer import ProxmoxAPI

port, certificate, user, token, secret, storage, path = sys.argv[1:8]
api = ProxmoxAPI("127.0.0.1", port=port, user=user, token_name=token, token_value=secret,
                 verify_ssl=certificate, service="PVE", timeout=30)
created = api.storage.post(storage=storage, type="dir", path=path, content="iso,images", shared=1)
read = api.storage(storage).get()
updated = api.storage(storage).put(content="backup", delete="shared", digest=read["digest"])
after = api.storage(storage).get()
listed = [s["storage"] for s in api.storage.get(type="dir")]
removed = api.storage(storage).delete()
print(json.dumps({
    "created": created,
    "read": read,
    "updated": updated,
    "after": after,
    "listed": listed,
    "removed": removed,
    "left": [s["storage"] for s in api.storage.get()],
}))
