import { defineConfig } from "vite";

// The desktop shell loads ui/dist; no CDN, no remote assets.
export default defineConfig({
  clearScreen: false,
  build: { outDir: "dist", emptyOutDir: true, target: "es2022" },
  server: { strictPort: true },
});
