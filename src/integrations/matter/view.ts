/** The Matter bridge as the console shows it (GET /console/api/matter). */
export type MatterView =
  | { enabled: false; chosen_by: 'setting' | 'console'; starting?: true }
  | {
      enabled: true;
      chosen_by: 'setting' | 'console';
      running: boolean;
      commissioned: boolean;
      manual_pairing_code: string;
      qr_payload: string;
      /** Whether a controller can add the bridge now; `until`: when pairing mode opened for another one closes. */
      pairing: { open: boolean; until: string | null };
      /** The QR code controllers scan, an SVG image. */
      qr_svg: string;
      port: number;
      fabrics: { index: number; label: string; vendor_id: number }[];
      devices: number;
    };
