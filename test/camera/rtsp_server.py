#!/usr/bin/python3
"""A real RTSP camera for the tests: GStreamer's RTSP server (GstRtspServer) on 127.0.0.1.

Mounts (all live test patterns):
  /h264      H.264 (x264) 640x360 video and PCMA 8000 Hz audio
  /h264-alt  H.264 (x264) 320x240 video, no audio
  /h265      H.265 (x265) 320x240 video
  /mjpeg     Motion JPEG over RTP (a codec the gateway does not support)

Usage: rtsp_server.py --port N [--auth none|basic|digest] [--user U] [--password P]
Port 0 picks a free port. Prints "READY <port>" on stdout once it listens; runs until killed.
"""
import argparse
import sys

import gi

gi.require_version('Gst', '1.0')
gi.require_version('GstRtsp', '1.0')
gi.require_version('GstRtspServer', '1.0')
from gi.repository import GLib, Gst, GstRtsp, GstRtspServer  # noqa: E402

PIPELINES = {
    '/h264': (
        '( videotestsrc is-live=true pattern=ball ! video/x-raw,width=640,height=360,framerate=10/1 '
        '! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=10 bitrate=300 '
        '! rtph264pay name=pay0 pt=96 config-interval=1 '
        'audiotestsrc is-live=true ! audio/x-raw,rate=8000,channels=1 ! alawenc ! rtppcmapay name=pay1 pt=8 )'
    ),
    '/h264-alt': (
        '( videotestsrc is-live=true pattern=smpte ! video/x-raw,width=320,height=240,framerate=10/1 '
        '! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=10 bitrate=200 '
        '! rtph264pay name=pay0 pt=96 config-interval=1 )'
    ),
    '/h265': (
        '( videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=10/1 '
        '! x265enc tune=zerolatency speed-preset=ultrafast key-int-max=10 bitrate=200 '
        '! rtph265pay name=pay0 pt=96 config-interval=1 )'
    ),
    '/mjpeg': (
        '( videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=10/1,format=I420 '
        '! jpegenc ! rtpjpegpay name=pay0 pt=26 )'
    ),
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--port', type=int, required=True)
    parser.add_argument('--auth', choices=['none', 'basic', 'digest'], default='none')
    parser.add_argument('--user', default='admin')
    parser.add_argument('--password', default='secret')
    args = parser.parse_args()

    Gst.init(None)
    server = GstRtspServer.RTSPServer()
    # Loopback only: the tests never expose a server on another interface.
    server.set_address('127.0.0.1')
    server.set_service(str(args.port))

    auth = None
    if args.auth != 'none':
        auth = GstRtspServer.RTSPAuth()
        token = GstRtspServer.RTSPToken()
        token.set_string(GstRtspServer.RTSP_TOKEN_MEDIA_FACTORY_ROLE, 'user')
        if args.auth == 'basic':
            auth.set_supported_methods(GstRtsp.RTSPAuthMethod.BASIC)
            auth.add_basic(GstRtspServer.RTSPAuth.make_basic(args.user, args.password), token)
        else:
            auth.set_supported_methods(GstRtsp.RTSPAuthMethod.DIGEST)
            auth.add_digest(args.user, args.password, token)
        server.set_auth(auth)

    mounts = server.get_mount_points()
    for path, launch in PIPELINES.items():
        factory = GstRtspServer.RTSPMediaFactory()
        factory.set_launch(launch)
        factory.set_shared(True)
        if auth is not None:
            role = Gst.Structure.new_from_string(
                'user, media.factory.access=(boolean)true, media.factory.construct=(boolean)true'
            )
            factory.add_role_from_structure(role)
        mounts.add_factory(path, factory)

    if server.attach(None) == 0:
        print('FAILED to listen', flush=True)
        sys.exit(1)
    print(f'READY {server.get_bound_port()}', flush=True)
    GLib.MainLoop().run()


if __name__ == '__main__':
    main()
