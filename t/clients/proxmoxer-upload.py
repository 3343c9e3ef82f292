#!/usr/bin/python3
"""Drives vsm serve through python3-proxmoxer, unchanged, as a script written for Proxmox VE would:
lists the nodes, storages and a storage's content, allocates a disk, sets a backup's notes, uploads
an ISO and reads its task's status, then deletes the disk and the ISO, waiting for each free's
task; prints what it got as one JSON object.

usage: proxmoxer-upload.py PORT CERTIFICATE USER@REALM TOKENID SECRET STORAGE BACKUP ISO
"""
import json
import os
import sys

from proxmoxer import ProxmoxAPI

from pve_tasks import wait


port, certificate, user, token, secret, storage, backup, iso = sys.argv[1:9]
api = ProxmoxAPI("127.0.0.1", port=port, user=user, token_name=token, token_value=secret,
                 verify_ssl=certificate, service="PVE", timeout=30)
node = api.nodes.get()[0]["node"]
storages = [s["storage"] for s in api.nodes(node).storage.get()]
store = api.nodes(node).storage(storage)
content = store.content
volid = content.post(vmid=104, filename="vm-104-disk-0.raw", size="1M")
content(backup).put(notes="set by proxmoxer")
notes = [v.get("notes") for v in content.get(content="backup") if v["volid"] == backup][0]
with open(iso, "rb") as f:
    upid = store.upload.post(content="iso", filename=f)
task = api.nodes(node).tasks(upid).status.get()
listed = [v["volid"] for v in content.get()]
wait(api, node, content(volid).delete())
wait(api, node, content("%s:iso/%s" % (storage, os.path.basename(iso))).delete())
print(json.dumps({
    "node": node,
    "storages": storages,
    "volid": volid,
    "notes": notes,
    "upid": upid,
    "task": task,
    "listed": listed,
    "after": [v["volid"] for v in content.get()],
}))
