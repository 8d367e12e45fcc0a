"""A headless Chromium and a minimal Chrome DevTools protocol client (Python standard library
only: a websocket client of its own, RFC 6455, enough for one page target)."""
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import tempfile
import time
import urllib.request


class CDPError(Exception):
    pass


class WebSocket:
    def __init__(self, url, timeout):
        if not url.startswith("ws://"):
            raise CDPError(f"not a ws:// url: {url}")
        hostport, _, path = url[len("ws://"):].partition("/")
        host, _, port = hostport.partition(":")
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET /{path} HTTP/1.1\r\nHost: {hostport}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                   "Sec-WebSocket-Version: 13\r\n\r\n")
        self.sock.sendall(request.encode())
        self.buffer = b""
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise CDPError("websocket handshake: connection closed")
            self.buffer += chunk
        head, _, rest = self.buffer.partition(b"\r\n\r\n")
        self.buffer = bytearray(rest)
        if b" 101 " not in head.split(b"\r\n")[0]:
            raise CDPError(f"websocket handshake refused: {head[:200]!r}")

    def _read(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(max(1 << 20, n - len(self.buffer)))
            if not chunk:
                raise CDPError("websocket closed")
            self.buffer += chunk
        data = bytes(self.buffer[:n])
        del self.buffer[:n]
        return data

    def send(self, text):
        payload = text.encode()
        header = bytes([0x81])
        n = len(payload)
        if n < 126:
            header += bytes([0x80 | n])
        elif n < 1 << 16:
            header += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", n)
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def receive(self):
        message = bytearray()
        while True:
            b0, b1 = self._read(2)
            opcode = b0 & 0x0F
            n = b1 & 0x7F
            if n == 126:
                n = struct.unpack(">H", self._read(2))[0]
            elif n == 127:
                n = struct.unpack(">Q", self._read(8))[0]
            if b1 & 0x80:
                mask = self._read(4)
                data = bytes(b ^ mask[i % 4] for i, b in enumerate(self._read(n)))
            else:
                data = self._read(n)
            if opcode == 0x8:
                raise CDPError("websocket closed by the browser")
            if opcode in (0x9, 0xA):
                continue
            message += data
            if b0 & 0x80:
                return message.decode()

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


class Browser:
    """Starts headless Chromium with WebGL through SwiftShader and attaches to its page."""

    def __init__(self, width, height, scale=1, timeout=60):
        self.profile = tempfile.mkdtemp(prefix="geopipe-browser-")
        flags = ["--headless=new", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
                 "--remote-debugging-port=0", f"--user-data-dir={self.profile}",
                 f"--window-size={width},{height}", "--hide-scrollbars", "--mute-audio",
                 "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                 "--disable-background-networking", "--disable-gpu-driver-bug-workarounds",
                 "--disable-renderer-backgrounding", "--disable-dev-shm-usage",
                 "--disable-background-timer-throttling",
                 "--disable-backgrounding-occluded-windows"]
        if os.geteuid() == 0:
            flags.append("--no-sandbox")
        executable = os.environ.get("CHROMIUM") or shutil.which("chromium") or "chromium"
        self.process = subprocess.Popen([executable, *flags, "about:blank"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.time() + timeout
        while not os.path.exists(port_file) or os.path.getsize(port_file) == 0:
            if self.process.poll() is not None:
                raise CDPError("chromium exited: " + self.process.stderr.read().decode()[-2000:])
            if time.time() > deadline:
                raise CDPError("chromium did not open its DevTools port")
            time.sleep(0.05)
        time.sleep(0.1)
        port = open(port_file).read().split()[0]
        targets = []
        while time.time() < deadline:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as response:
                targets = [t for t in json.load(response) if t.get("type") == "page"]
            if targets:
                break
            time.sleep(0.1)
        if not targets:
            raise CDPError("chromium has no page target")
        self.ws = WebSocket(targets[0]["webSocketDebuggerUrl"], timeout)
        self.next_id = 0
        self.events = []
        self.call("Runtime.enable")
        self.call("Log.enable")
        self.call("Page.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=scale, mobile=False)

    def call(self, method, **params):
        self.next_id += 1
        my_id = self.next_id
        self.ws.send(json.dumps({"id": my_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.ws.receive())
            if message.get("id") == my_id:
                if "error" in message:
                    raise CDPError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def evaluate(self, expression, timeout=120):
        result = self.call("Runtime.evaluate", expression=expression, awaitPromise=True,
                           returnByValue=True, timeout=timeout * 1000)
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            text = details.get("exception", {}).get("description") or details.get("text")
            raise CDPError(f"page: {text}")
        return result.get("result", {}).get("value")

    def navigate(self, url):
        self.call("Page.navigate", url=url)
        deadline = time.time() + 60
        while time.time() < deadline:
            if self.evaluate("document.readyState") == "complete":
                return
            time.sleep(0.05)
        raise CDPError(f"{url} did not load")

    def screenshot(self):
        """The viewport as PNG bytes (Chromium's fast encoding: no row filters, zlib level 1)."""
        result = self.call("Page.captureScreenshot", format="png", optimizeForSpeed=True)
        return base64.b64decode(result["data"])

    def take_errors(self):
        """Console errors, uncaught exceptions and failed requests since the last call."""
        errors = []
        for event in self.events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                parts = [a.get("value", a.get("description", "")) for a in params.get("args", [])]
                errors.append("console.error: " + " ".join(str(p) for p in parts)[:300])
            elif method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                text = details.get("exception", {}).get("description") or details.get("text")
                errors.append(f"exception: {str(text)[:300]}")
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                entry = params["entry"]
                errors.append(f"log: {entry.get('text', '')[:200]} {entry.get('url', '')}")
        self.events = []
        return errors

    def close(self):
        try:
            self.call("Browser.close")
        except (CDPError, OSError):
            pass
        self.ws.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)
