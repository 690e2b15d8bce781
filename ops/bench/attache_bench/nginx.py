"""The object store every contender PUTs to: nginx serving WebDAV on 127.0.0.1 from a generated config."""
import filecmp
import os
import shutil

from .children import Child, free_port, wait_for_port
from .cpu import child_pids
from .failure import BenchFailure

DAV_EXT_MODULE = "/usr/lib/nginx/modules/ngx_http_dav_ext_module.so"

CONFIG = """load_module {module};
{user}
worker_processes auto;
pid {srv}/nginx.pid;
error_log {srv}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {srv}/body;
    server {{
        listen 127.0.0.1:{port} backlog=4096;
        root {store};
        location / {{
            dav_methods PUT DELETE MKCOL COPY MOVE;
            dav_ext_methods PROPFIND OPTIONS;
            create_full_put_path on;
            client_max_body_size 0;
            keepalive_requests 100000;
        }}
    }}
}}
"""


class Nginx:
    """nginx (`worker_processes auto`) storing every PUT under `store`, its files named by the URL path."""

    def __init__(self, workdir):
        srv = os.path.join(workdir, "nginx")
        self.store = os.path.join(srv, "store")
        os.makedirs(os.path.join(srv, "body"), exist_ok=True)
        os.makedirs(self.store, exist_ok=True)
        if not os.path.exists(DAV_EXT_MODULE):
            raise BenchFailure("{} missing: run ops/install-deps bench".format(DAV_EXT_MODULE))
        self.port = free_port()
        self.base = "http://127.0.0.1:{}".format(self.port)
        conf = os.path.join(srv, "nginx.conf")
        with open(conf, "w") as f:
            f.write(CONFIG.format(module=DAV_EXT_MODULE, user="user root;" if os.getuid() == 0 else "", srv=srv,
                                  port=self.port, store=self.store))
        self.child = Child("nginx", ["/usr/sbin/nginx", "-p", srv, "-c", conf, "-g", "daemon off;"], workdir)
        wait_for_port(self.port)

    @property
    def upstream(self):
        """host:port, for a proxy in front of it."""
        return "127.0.0.1:{}".format(self.port)

    def pids(self):
        """The master and its workers, whose CPU counts for the contender that drove them."""
        return [self.child.pid] + child_pids(self.child.pid)

    def clear_store(self):
        """Empties the store. Each contender calls it just before its timed part, never seconds ahead: on a virtual
        machine that reports free pages to its host (virtio-balloon), memory freed about 2 s earlier has gone back to
        the host, and nginx's first write to each such page then pays for a fault on the host. A contender started
        right after the store was emptied (curl) wrote into memory just freed, one started after a worker joined its
        group wrote into memory given back: nginx spent 4.3–5.4 CPU-s receiving 8 × 256 MiB from it against 3.0–3.6."""
        for entry in os.listdir(self.store):
            shutil.rmtree(os.path.join(self.store, entry), ignore_errors=True)

    def stored_path(self, *parts):
        return os.path.join(self.store, *parts)

    def check_stored(self, pairs, compare_bytes):
        """Every (source, stored path) pair landed in the store, same size (and same bytes when asked)."""
        for source, stored in pairs:
            if not os.path.exists(stored) or os.path.getsize(stored) != os.path.getsize(source):
                raise BenchFailure("{} did not land intact at {}".format(source, stored))
            if compare_bytes and not filecmp.cmp(source, stored, shallow=False):
                raise BenchFailure("{} stored different bytes at {}".format(source, stored))
