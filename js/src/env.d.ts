// esbuild bundles imported stylesheets into widget.css.
declare module "*.css";
