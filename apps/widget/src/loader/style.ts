/**
 * Styles of the shadow root. `:host { all: initial }` keeps inherited host-page styles out; nothing
 * here can reach the host page. `--c` is the main colour from the settings.
 */
export const CSS = `:host{all:initial;--c:#1677ff;--b:20px;--s:20px;--ww:384px;--wh:660px;--fc:#1677ff;--ft:40%}
*{box-sizing:border-box}
button{font:inherit;cursor:pointer}
.l{position:fixed;right:var(--s);bottom:var(--b);z-index:2147483000;display:flex;align-items:center;justify-content:center;gap:8px;height:56px;min-width:56px;padding:0;border:0;border-radius:28px;background:var(--c);color:#fff;font:600 15px/1 system-ui,-apple-system,"Segoe UI",Roboto,"PingFang SC","Microsoft YaHei",sans-serif;box-shadow:0 6px 24px rgba(0,0,0,.18),0 2px 6px rgba(0,0,0,.12);opacity:0;visibility:hidden;transform:scale(.5);pointer-events:none;transition:transform .25s cubic-bezier(.2,.9,.3,1.2),opacity .2s,box-shadow .2s,visibility 0s .2s}
.l.on{opacity:1;visibility:visible;transform:none;pointer-events:auto;transition:transform .25s cubic-bezier(.2,.9,.3,1.2),opacity .2s,box-shadow .2s}
.l.on:hover{transform:translateY(-2px);box-shadow:0 10px 28px rgba(0,0,0,.22)}
.l:focus-visible{outline:3px solid rgba(0,0,0,.35);outline-offset:3px}
.l.bar{padding:0 22px 0 18px;border-radius:12px}
.l.img{background:none;box-shadow:none;height:auto;border-radius:0}.l.img .ic{width:auto;height:auto;max-width:160px;max-height:160px}.l.img .ic img{border-radius:0}
.l.left,.i.left{right:auto;left:var(--s)}
.ic{display:flex;width:28px;height:28px}
.ic svg,.ic img{width:100%;height:100%}
.ic img{border-radius:50%;object-fit:cover}
.t:empty{display:none}
.b{position:absolute;top:-4px;right:-4px;min-width:22px;height:22px;padding:0 6px;border-radius:11px;background:#f5222d;color:#fff;font:700 12px/22px system-ui,sans-serif;text-align:center;box-shadow:0 0 0 2px #fff;animation:p .3s}
.b[hidden]{display:none}
@keyframes p{from{transform:scale(0)}}
.w{position:fixed;right:var(--s);bottom:calc(var(--b) + 68px);z-index:2147483001;width:min(var(--ww),calc(100% - 2 * var(--s)));height:min(var(--wh),calc(100% - var(--b) - 88px));border-radius:16px;overflow:hidden;background:#fff;box-shadow:0 16px 56px rgba(0,0,0,.2),0 2px 8px rgba(0,0,0,.08);opacity:0;visibility:hidden;transform:translateY(16px) scale(.98);transform-origin:bottom right;transition:opacity .2s,transform .2s,visibility 0s .2s}
.w.left{right:auto;left:var(--s);transform-origin:bottom left}
.w.on{opacity:1;visibility:visible;transform:none;transition:opacity .2s,transform .25s cubic-bezier(.2,.9,.3,1)}
.w.st{transition:none}
.pv{position:fixed;right:var(--s);bottom:calc(var(--b) + 68px);z-index:2147483000;display:none;max-width:min(280px,calc(100% - 2 * var(--s)));padding:10px 14px;border:0;border-radius:12px;background:#fff;color:#1f2329;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"PingFang SC","Microsoft YaHei",sans-serif;text-align:left;box-shadow:0 8px 28px rgba(0,0,0,.16);overflow:hidden;-webkit-line-clamp:3;-webkit-box-orient:vertical;animation:u .3s}
.pv.on{display:-webkit-box}.pv.left{right:auto;left:var(--s)}
.w iframe{display:block;width:100%;height:100%;border:0;background:#fff}
.i{position:fixed;right:var(--s);bottom:calc(var(--b) + 70px);z-index:2147483000;width:300px;padding:18px 18px 14px;border-radius:14px;background:#fff;color:#1f2329;font:14px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,"PingFang SC","Microsoft YaHei",sans-serif;box-shadow:0 12px 40px rgba(0,0,0,.18),0 1px 3px rgba(0,0,0,.08);display:none;animation:u .3s}
.i.on{display:block}
@keyframes u{from{opacity:0;transform:translateY(10px)}}
.ih{display:flex;align-items:center;gap:10px;margin:0 24px 8px 0}.ia{display:flex;flex:none;width:34px;height:34px;padding:7px;border-radius:50%;background:var(--c);color:#fff}.ia svg{width:100%;height:100%}.i strong{font-size:15px}
.i p{margin:0 0 14px;color:#4e5969;white-space:pre-wrap;overflow-wrap:anywhere}
.i .x{position:absolute;top:8px;right:8px;width:28px;height:28px;border:0;border-radius:50%;background:none;color:#86909c;font-size:20px;line-height:1}
.i .x:hover{background:#f2f3f5}
.a{display:flex;justify-content:flex-end;gap:8px}
.a button{height:34px;padding:0 16px;border-radius:17px;font-size:14px}
.n{border:1px solid #e5e6eb;background:#fff;color:#4e5969}
.ii{flex:none;width:34px;height:34px;border-radius:50%;object-fit:cover}
.f{position:fixed;right:0;top:var(--ft);z-index:2147482999;display:none;flex-direction:column;gap:1px;border-radius:10px 0 0 10px;overflow:visible;box-shadow:0 4px 16px rgba(0,0,0,.15);font:13px/1.3 system-ui,-apple-system,"Segoe UI",Roboto,"PingFang SC","Microsoft YaHei",sans-serif}
.f.on{display:flex}.f.left{right:auto;left:0;border-radius:0 10px 10px 0}
.fi{display:block;min-width:64px;max-width:120px;padding:10px 8px;border:0;background:var(--fc);color:#fff;text-align:center;text-decoration:none;overflow-wrap:anywhere}
.fi{position:relative}.fi:first-child{border-top-left-radius:inherit;border-top-right-radius:inherit}.fi:last-child{border-bottom-left-radius:inherit;border-bottom-right-radius:inherit}
.fi:hover{filter:brightness(1.1)}.fi:focus-visible{outline:3px solid rgba(0,0,0,.4);outline-offset:-3px}
.fq{position:absolute;right:calc(100% + 8px);top:0;display:none;padding:8px;border-radius:8px;background:#fff;color:#222;white-space:nowrap;box-shadow:0 8px 24px rgba(0,0,0,.18)}.f.left .fq{right:auto;left:calc(100% + 8px)}.fq.on{display:block}.fq img{display:block;width:140px;height:140px}
.y{border:0;background:var(--c);color:#fff;font-weight:600}
@media (max-width:480px){.w,.w.left{inset:0;width:100%;height:100%;border-radius:0;transform:translateY(24px)}.w.on~.l{display:none}.i{right:12px;left:12px;width:auto}}`;
