#!/usr/bin/env bash
# Installs the Debian packages the camera and Home Assistant tests need, when they are missing:
# GStreamer's RTSP server for Python (the test cameras), the plugins that encode H.264 (x264,
# ugly), H.265 (x265, bad) and Motion JPEG (good), ffmpeg (snapshots and live view of RTSP
# cameras), and mosquitto (the broker users run beside Home Assistant).
# Usage: scripts/ensure-system-deps.sh [--check]   (--check only reports what is missing)
# Exits 0 when everything is present, non-zero with one plain line naming what could not be had.
set -uo pipefail

packages=(
  gir1.2-gst-rtsp-server-1.0
  python3-gi
  gstreamer1.0-plugins-base
  gstreamer1.0-plugins-good
  gstreamer1.0-plugins-ugly
  gstreamer1.0-plugins-bad
  ffmpeg
  mosquitto
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi
if [[ "${1:-}" == "--check" ]]; then
  echo "missing Debian packages: ${missing[*]}"
  exit 1
fi
if [[ "$(id -u)" != "0" ]]; then
  echo "cannot install the Debian packages ${missing[*]}: not root (run: sudo apt-get install ${missing[*]})"
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
# Other processes may hold apt's lock (an unattended upgrade, a parallel test run): wait for it.
apt_opts=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=2)
if ! apt-get "${apt_opts[@]}" install -y --no-install-recommends "${missing[@]}" >/tmp/opencube-apt.log 2>&1; then
  apt-get "${apt_opts[@]}" update >>/tmp/opencube-apt.log 2>&1
  if ! apt-get "${apt_opts[@]}" install -y --no-install-recommends "${missing[@]}" >>/tmp/opencube-apt.log 2>&1; then
    echo "cannot install the Debian packages ${missing[*]}: apt-get failed (its output: /tmp/opencube-apt.log)"
    exit 1
  fi
fi
exit 0
