/**
 * Styles of the shadow root. `:host { all: initial }` keeps inherited host-page styles out; nothing
 * here can reach the host page. `--c` is the main colour from the settings.
 */
export const CSS = `:host{all:initial;--c:#1677ff}
*{box-sizing:border-box}
button{font:inherit;cursor:pointer}
.l{position:fixed;right:20px;bottom:20px;z-index:2147483000;display:flex;align-items:center;justify-content:center;gap:8px;height:56px;min-width:56px;padding:0;border:0;border-radius:28px;background:var(--c);color:#fff;font:600 15px/1 system-ui,-apple-system,"Segoe UI",Roboto,"PingFang SC","Microsoft YaHei",sans-serif;box-shadow:0 6px 24px rgba(0,0,0,.18),0 2px 6px rgba(0,0,0,.12);opacity:0;transform:scale(.5);pointer-events:none;transition:transform .25s cubic-bezier(.2,.9,.3,1.2),opacity .2s,box-shadow .2s}
.l.on{opacity:1;transform:none;pointer-events:auto}
.l.on:hover{transform:translateY(-2px);box-shadow:0 10px 28px rgba(0,0,0,.22)}
.l:focus-visible{outline:3px solid rgba(0,0,0,.35);outline-offset:3px}
.l.wide{padding:0 22px 0 18px}
.l.left,.i.left{right:auto;left:20px}
.ic{display:flex;width:28px;height:28px}
.ic svg,.ic img{width:100%;height:100%}
.ic img{border-radius:50%;object-fit:cover}
.t:empty{display:none}
.b{position:absolute;top:-4px;right:-4px;min-width:22px;height:22px;padding:0 6px;border-radius:11px;background:#f5222d;color:#fff;font:700 12px/22px system-ui,sans-serif;text-align:center;box-shadow:0 0 0 2px #fff;animation:p .3s}
.b[hidden]{display:none}
@keyframes p{from{transform:scale(0)}}
.w{position:fixed;right:20px;bottom:88px;z-index:2147483001;width:384px;height:min(660px,calc(100% - 108px));border-radius:16px;overflow:hidden;background:#fff;box-shadow:0 16px 56px rgba(0,0,0,.2),0 2px 8px rgba(0,0,0,.08);opacity:0;visibility:hidden;transform:translateY(16px) scale(.98);transform-origin:bottom right;transition:opacity .2s,transform .2s,visibility 0s .2s}
.w.left{right:auto;left:20px;transform-origin:bottom left}
.w.on{opacity:1;visibility:visible;transform:none;transition:opacity .2s,transform .25s cubic-bezier(.2,.9,.3,1)}
.w iframe{display:block;width:100%;height:100%;border:0;background:#fff}
.i{position:fixed;right:20px;bottom:90px;z-index:2147483000;width:300px;padding:18px 18px 14px;border-radius:14px;background:#fff;color:#1f2329;font:14px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"PingFang SC","Microsoft YaHei",sans-serif;box-shadow:0 12px 40px rgba(0,0,0,.18),0 1px 3px rgba(0,0,0,.08);display:none;animation:u .3s}
.i.on{display:block}
@keyframes u{from{opacity:0;transform:translateY(10px)}}
.ih{display:flex;align-items:center;gap:10px;margin:0 24px 8px 0}.ia{display:flex;flex:none;width:34px;height:34px;padding:7px;border-radius:50%;background:var(--c);color:#fff}.ia svg{width:100%;height:100%}.i strong{font-size:15px}
.i p{margin:0 0 14px;color:#4e5969;white-space:pre-wrap;overflow-wrap:anywhere}
.i .x{position:absolute;top:8px;right:8px;width:28px;height:28px;border:0;border-radius:50%;background:none;color:#86909c;font-size:20px;line-height:1}
.i .x:hover{background:#f2f3f5}
.a{display:flex;justify-content:flex-end;gap:8px}
.a button{height:34px;padding:0 16px;border-radius:17px;font-size:14px}
.n{border:1px solid #e5e6eb;background:#fff;color:#4e5969}
.y{border:0;background:var(--c);color:#fff;font-weight:600}
@media (max-width:480px){.w,.w.left{inset:0;width:100%;height:100%;border-radius:0;transform:translateY(24px)}.w.on~.l{display:none}.i{right:12px;left:12px;width:auto}}`;
